/** Approvals by a second person and spend limits: the policy, its written forms, the requests. */
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
export { approvalActionChecker } from './check-action.js';
