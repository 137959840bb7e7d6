/** The command core: registry, parsing, the dispatcher and its pipeline of steps, roles, button ids, confirmations, dialogs, audit. */
export * from './message.js';
export * from './types.js';
export * from './format.js';
export * from './errors.js';
export * from './chat.js';
export type { Services } from './services.js';

export { createRegistry, GROUP_ORDER, type Registry, type CommandGroup, type AnyCommand } from './registry.js';
export { argSpecsOf, type ArgSpec, type ArgKind } from './arg-specs.js';
export { parseCommandLine, tokenize, type ParsedCommand } from './parse-command-line.js';
export { createDispatcher, type DispatcherOptions, type CoreDispatcher } from './create-dispatcher.js';
export { createButtonIds, type ButtonIds, type ButtonIdsOptions } from './button-ids.js';
export { createConfirmations, type Confirmations } from './confirmations.js';
export { createNodeLookup, findNode, type NodeLookup } from './node-lookup.js';
export { actorLabel } from './actor-label.js';
export { CONFIRM_COMMAND, CANCEL_COMMAND } from './pipeline/steps/confirm.js';
export { CONFIRM_NAME_FIELD, checkboxValue } from './pipeline/steps/handle-dialog.js';
export { OPEN_DIALOG_COMMAND } from './pipeline/in-time.js';
export { STEPS } from './pipeline/run-steps.js';
export { createRoleService, actorKey, PRINCIPAL_RE, ROLES, ROLE_RANK, SHELL_PRINCIPAL, type RoleService, type RoleEntry } from './role-service.js';
export { createAuditLog, type AuditLog, type AuditEntry, type AuditOutcome, type AuditRecordInput } from './audit-log.js';
export { errorMessage, type ErrorOutcome } from './error-message.js';
export { renderHelp, renderCommandHelp, usageOf } from './render-help.js';
export { redactArgs, isSecretName, findInlineSecret, SECRET_NAME_RE } from './inline-secret.js';
export { editDistance, closestOf } from './edit-distance.js';
export { sleep, within, LATE } from './within.js';
