/** The command core: registry, parsing, dispatcher, roles, confirmations, dialogs, audit. */
export * from './message.js';
export * from './types.js';
export * from './format.js';
export * from './errors.js';
export * from './chat.js';
export type { Services } from './services.js';
import './core-services.js';

export { createRegistry, GROUP_ORDER, type Registry, type CommandGroup, type AnyCommand } from './registry.js';
export { argSpecsOf, type ArgSpec, type ArgKind } from './arg-specs.js';
export { parseCommandLine, tokenize, type ParsedCommand } from './parse-command-line.js';
export {
  createDispatcher,
  CONFIRM_COMMAND,
  CANCEL_COMMAND,
  CONFIRM_NAME_FIELD,
  BACKUP_FIELD,
  BACKUP_PASSWORD_FIELD,
  checkboxValue,
  type DispatcherOptions,
  type CoreDispatcher,
  type ServicesInput,
} from './create-dispatcher.js';
export { createRoleService, actorKey, PRINCIPAL_RE, ROLES, ROLE_RANK, SHELL_PRINCIPAL, type RoleService, type RoleEntry } from './role-service.js';
export { createAuditLog, type AuditLog, type AuditEntry, type AuditOutcome, type AuditRecordInput } from './audit-log.js';
export { errorMessage, type ErrorOutcome } from './error-message.js';
export { renderHelp, renderCommandHelp, usageOf } from './render-help.js';
export { redactArgs, isSecretName, findInlineSecret, SECRET_NAME_RE } from './inline-secret.js';
export { editDistance, closestOf } from './edit-distance.js';
export { cutText, graphemePrefix } from './cut-text.js';
