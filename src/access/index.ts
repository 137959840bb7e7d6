/**
 * Access: who may do what. Roles and their scoped grants, the approval policy and the daily
 * spend limits, the approval requests, and the audit trail. Built on the store; knows no command
 * (the engine checks an approval rule against its registry: src/engine/check-approval-action.ts).
 */
export { createRoleService, scopeCovers, scopeText, type Scope, type Where } from './role-service.js';
export { actorKey, ROLES, ROLE_RANK, SHELL_PRINCIPAL, type RoleService, type RoleEntry } from './role-service.js';
export { createAuditLog, type AuditLog, type AuditEntry, type AuditOutcome, type AuditRecordInput } from './audit-log.js';
export { createPolicy, reaches, type Policy, type PolicyOptions, type RuleSource } from './create-policy.js';
export { createApprovals, type Approval, type Approvals } from './approvals.js';
export {
  DEFAULT_APPROVAL_POLICY,
  actionName,
  limitSubject,
  parseApprovalPolicy,
  parseApprovalRule,
  parseSpendLimits,
  policyProblem,
  policyConfigProblems,
  type ApprovalRule,
  type LimitRule,
} from './parse-policy.js';
