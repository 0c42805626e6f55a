/**
 * What a person (or a handler) may answer to a request. `allow_always` and `deny_always` also add
 * the request's rule for the session (an allow rule or a deny rule).
 */
export type ApprovalDecision = "allow" | "allow_always" | "deny" | "deny_always";

export const APPROVAL_DECISIONS: readonly ApprovalDecision[] = ["allow", "allow_always", "deny", "deny_always"];

export function isApprovalDecision(value: unknown): value is ApprovalDecision {
	return typeof value === "string" && (APPROVAL_DECISIONS as readonly string[]).includes(value);
}

/** Whether a decision lets the call run. */
export function allowsCall(decision: ApprovalDecision): boolean {
	return decision === "allow" || decision === "allow_always";
}

/**
 * Who decided: `user` (an answer), `rule` (the policy, without asking: a rule, named in the
 * record, or the mode), `timeout` (no answer in time: denied), `abort` (the run was aborted or the
 * session replaced while the request was open: denied).
 */
export type DecidedBy = "user" | "rule" | "timeout" | "abort";

/** What happened to a call: it runs, or it does not and the model reads `text`. */
export type ApprovalOutcome = { allowed: true } | { allowed: false; text: string };

/**
 * The audit record of one decision, as the session stores it (every decision except the mode's
 * silent allows). `decision` is what was decided (`allow_always` or `deny_always` when a person
 * chose it); `rule` is the rule that decided, or the one `allow_always` or `deny_always` added.
 */
export interface ApprovalRecord {
	toolCallId: string;
	toolName: string;
	decision: ApprovalDecision;
	by: DecidedBy;
	rule?: string;
	/** Why it was asked or decided (the mode or the rule), in words. */
	reason: string;
	/** The request's id, when someone was asked. */
	requestId?: string;
	/** The text a person gave with a deny. */
	message?: string;
}
