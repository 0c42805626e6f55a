export {
	DEFAULT_APPROVAL_TIMEOUT_MS,
	type PermissionLayer,
	type PermissionResolution,
	type PermissionSetup,
	type PermissionsBlock,
	type ResolvedPermissions,
	resolvePermissions,
} from "./configure.js";
export { APPROVAL_MODES, type ApprovalMode, isApprovalMode, isLooser, stricterMode } from "./modes.js";
export { decide, type Policy, type Verdict } from "./policy.js";
export {
	APPROVAL_DECISIONS,
	type ApprovalDecision,
	type ApprovalOutcome,
	type ApprovalRecord,
	allowsCall,
	type DecidedBy,
	isApprovalDecision,
} from "./record.js";
export { alwaysRuleFor, type CallFacts, type PermissionRule, parseRule } from "./rules.js";
export * from "./texts.js";
