/**
 * The command engine: the registry, parsing, the dispatcher and its pipeline of steps, button
 * ids, confirmations and dialogs, help. Generic over the services it is given (EngineServices is
 * what it uses itself); commands/ and the chat adapters build on it (docs/ARCHITECTURE.md, "Layers").
 */
export * from './types.js';
export type { EngineServices } from './types.js';
export { createRegistry } from './registry.js';
export { argSpecsOf, type ArgSpec, type ArgKind } from './arg-specs.js';
export { parseCommandLine, stripPrefix, tokenize, type ParsedCommand } from './parse-command-line.js';
export { createDispatcher, type DispatcherOptions, type CoreDispatcher } from './create-dispatcher.js';
export { createButtonIds, type ButtonIds, type ButtonIdsOptions } from './button-ids.js';
export { createConfirmations, type Confirmations } from './confirmations.js';
export { createNodeLookup, findNode, type NodeLookup } from './node-lookup.js';
export { CONFIRM_COMMAND, CANCEL_COMMAND } from './pipeline/steps/confirm.js';
export { CONFIRM_NAME_FIELD, checkboxValue } from './pipeline/steps/handle-dialog.js';
export { OPEN_DIALOG_COMMAND } from './pipeline/in-time.js';
export { STEPS } from './pipeline/run-steps.js';
export { APPROVE_COMMAND, CONTINUE_COMMAND, REJECT_COMMAND } from './pipeline/steps/require-approval.js';
export { errorMessage, type ErrorOutcome } from './error-message.js';
export { renderHelp, renderCommandHelp, usageOf, exampleOf } from './render-help.js';
export { commandStyle, type CommandStyle } from './command-style.js';
export { redactArgs, isSecretName, findInlineSecret, SECRET_NAME_RE } from './inline-secret.js';
export { approvalActionChecker } from './check-approval-action.js';
