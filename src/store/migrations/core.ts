import { migrationSet, type Migration } from './migration.js';

/**
 * The columns of a request stored until someone acts on it (a confirmation, a dialog, an
 * approval): who asked, where, and the command with its arguments.
 */
const REQUEST = `requester_json TEXT NOT NULL,
        requester_key TEXT NOT NULL,
        place_json TEXT NOT NULL,
        path TEXT NOT NULL,
        args_json TEXT NOT NULL`;

/** The core room's tables. Versions from 100, in order (migrationSet). Append new migrations; never edit one that has shipped. */
export const coreMigrations: Migration[] = migrationSet('core', 100, {
  'role grants, audit, confirmations, buttons, dialogs': (d) => `
      CREATE TABLE core_role_grants (
        principal TEXT PRIMARY KEY,
        role TEXT NOT NULL CHECK (role IN ('read', 'operate', 'admin')),
        granted_by TEXT NOT NULL,
        granted_at TEXT NOT NULL
      );
      CREATE TABLE core_audit (
        id ${d.id},
        at TEXT NOT NULL,
        actor_platform TEXT NOT NULL,
        actor_id TEXT NOT NULL,
        actor_name TEXT,
        place_platform TEXT NOT NULL,
        place_channel TEXT NOT NULL,
        path TEXT NOT NULL,
        node TEXT,
        node_id TEXT,
        args_json TEXT NOT NULL,
        outcome TEXT NOT NULL CHECK (outcome IN ('ok', 'failed', 'refused')),
        reason TEXT
      );
      CREATE INDEX core_audit_node ON core_audit (node, id);
      CREATE INDEX core_audit_node_id ON core_audit (node_id, id);
      CREATE TABLE core_confirmations (
        id TEXT PRIMARY KEY,
        ${REQUEST},
        created_at ${d.bigint} NOT NULL,
        expires_at ${d.bigint} NOT NULL,
        used_at ${d.bigint},
        outcome TEXT
      );
      CREATE TABLE core_buttons (
        id TEXT PRIMARY KEY,
        command TEXT NOT NULL,
        args_json TEXT NOT NULL,
        created_at ${d.bigint} NOT NULL,
        expires_at ${d.bigint} NOT NULL
      );
      CREATE INDEX core_buttons_expiry ON core_buttons (expires_at);
      CREATE TABLE core_dialogs (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('secrets', 'typed-name')),
        ${REQUEST},
        created_at ${d.bigint} NOT NULL,
        expires_at ${d.bigint} NOT NULL,
        used_at ${d.bigint}
      );
      CREATE INDEX core_dialogs_expiry ON core_dialogs (expires_at);
    `,

  'approval policy, spend limits and their ledger, approvals, scoped role grants': (d) => `
      ALTER TABLE core_role_grants ADD COLUMN nodes TEXT;
      ALTER TABLE core_role_grants ADD COLUMN channels TEXT;
      CREATE TABLE core_policy_rules (
        kind TEXT NOT NULL CHECK (kind IN ('approval', 'limit')),
        subject TEXT NOT NULL,
        unit TEXT NOT NULL,
        amount ${d.double},
        off INTEGER NOT NULL DEFAULT 0,
        set_by TEXT NOT NULL,
        set_at TEXT NOT NULL,
        PRIMARY KEY (kind, subject, unit)
      );
      CREATE TABLE core_spend_ledger (
        id ${d.id},
        who TEXT NOT NULL,
        unit TEXT NOT NULL,
        amount ${d.double} NOT NULL,
        day TEXT NOT NULL,
        at ${d.bigint} NOT NULL,
        path TEXT NOT NULL
      );
      CREATE INDEX core_spend_ledger_day ON core_spend_ledger (who, day, unit);
      CREATE TABLE core_approvals (
        id TEXT PRIMARY KEY,
        ${REQUEST},
        node TEXT,
        summary_json TEXT NOT NULL,
        created_at ${d.bigint} NOT NULL,
        expires_at ${d.bigint} NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'approved', 'rejected', 'expired')),
        decided_by TEXT,
        decided_at ${d.bigint},
        reason TEXT
      );
      CREATE INDEX core_approvals_expiry ON core_approvals (expires_at);
    `,

  'the spend ledger counts bitcoin in msat; identity links (one person, several chat accounts)': () => `
      UPDATE core_spend_ledger SET unit = 'msat', amount = amount * 1000 WHERE unit = 'sat';
      CREATE TABLE core_identity_links (
        principal TEXT PRIMARY KEY,
        person TEXT NOT NULL,
        linked_by TEXT NOT NULL,
        linked_at TEXT NOT NULL
      );
      CREATE INDEX core_identity_links_person ON core_identity_links (person);
    `,

  "client certificates fetched through the service's generate-cert, the private key sealed": (d) => `
      CREATE TABLE core_node_certs (
        node_id TEXT PRIMARY KEY,
        node_name TEXT NOT NULL,
        certificate TEXT NOT NULL,
        chain TEXT NOT NULL,
        sealed_key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        fetched_by TEXT NOT NULL,
        fetched_at ${d.bigint} NOT NULL
      );
    `,
});
