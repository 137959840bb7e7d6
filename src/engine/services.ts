/**
 * What the engine itself needs from the services it is given: the clock, roles, the audit
 * trail, the policy, the registry (for `help`) and the hosting client (to resolve a node).
 * The engine is generic over the rest: commands/services.ts names the concrete Services type
 * (watches, reports, node API clients, …) that the app builds and commands receive.
 */
import type { HostingClient } from '../hosting/index.js';
import type { AuditLog, Policy, RoleService } from '../access/index.js';
import type { Registry } from './registry.js';

export interface EngineServices {
  hosting: HostingClient;
  /** The one clock: milliseconds since the epoch. */
  now(): number;
  /** Roles: who may do what; `access grant|revoke|list`. */
  access: RoleService;
  /** The audit trail; `audit [node]`. */
  audit: AuditLog;
  /** The command registry; `help`. */
  commands: Registry;
  /** Approvals by a second person and spend limits; the `policy` commands. */
  policy: Policy;
}
