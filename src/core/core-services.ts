/**
 * The core's services for handlers (commands/access.ts, commands/meta.ts), by declaration
 * merging on Services. The dispatcher fills them in, so the composition root may omit them.
 */
import type { RoleService } from './role-service.js';
import type { AuditLog } from './audit-log.js';
import type { Registry } from './registry.js';

declare module './services.js' {
  interface Services {
    /** Roles: who may do what; `access grant|revoke|list`. */
    access: RoleService;
    /** The audit trail; `audit [node]`. */
    audit: AuditLog;
    /** The command registry; `help`. */
    commands: Registry;
  }
}

export {};
