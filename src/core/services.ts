/**
 * What handlers may use, built once by the composition root (src/app.ts) and complete from the
 * start. Core names the other rooms' services by type only (through their index.ts), so it
 * never imports an implementation.
 */
import type { HostingClient, HostedNode } from '../hosting/index.js';
import type { NodeApiClient } from '../node-api/index.js';
import type { WatchService } from '../notify/index.js';
import type { ReportService } from '../reports/index.js';
import type { RoleService } from './role-service.js';
import type { AuditLog } from './audit-log.js';
import type { Registry } from './registry.js';
import type { ProgressReporter } from './chat.js';
import type { Policy } from './policy/index.js';

export interface Services {
  hosting: HostingClient;
  /** A node API client for this node, with its configured credentials. */
  nodeApi(node: HostedNode): NodeApiClient;
  /** `PUBLIC_URL`, when set: the HTTPS base at which the service reaches the bot. */
  publicUrl?: string;
  /** The one clock: milliseconds since the epoch. */
  now(): number;
  /** Roles: who may do what; `access grant|revoke|list`. */
  access: RoleService;
  /** The audit trail; `audit [node]`. */
  audit: AuditLog;
  /** The command registry; `help`. */
  commands: Registry;
  /** Watches, mutes and incident acknowledgements; the `watch` commands. */
  watches: WatchService;
  /** Reports and their schedules; the `report` commands. */
  reports: ReportService;
  /** Progress messages edited in place (a message the command posts, then updates). */
  progress: ProgressReporter;
  /** Approvals by a second person and spend limits; the `policy` commands. */
  policy: Policy;
}
