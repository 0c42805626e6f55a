import type { ApprovalDecision, DecidedBy } from "../../permissions/index.js";

/** A tool call waiting for a decision, as clients and handlers see it (`tool_approval_request`). */
export type ToolApprovalRequest = {
	/** Made by the runtime (a UUID); the answer names it. */
	id: string;
	toolCallId: string;
	toolName: string;
	args: Record<string, unknown>;
	/** Why it asks (the mode), in words. */
	reason: string;
	options: ApprovalDecision[];
	/** Milliseconds until it is denied; absent: it waits until answered or aborted. */
	timeout?: number;
	/** When it will be denied (ISO-8601); absent without a timeout. */
	expiresAt?: string;
	/** The rule `allow_always` adds as an allow rule, or `deny_always` as a deny rule, for the session. */
	alwaysRule: string;
	/**
	 * `sandbox_escalation`: the model asks to run this bash call once outside the sandbox (its
	 * rule, kept in memory for this process, covers later escalations only). Absent: a tool call.
	 */
	kind?: "sandbox_escalation";
};

export interface ToolApprovalAnswer {
	decision: ApprovalDecision;
	/** With `deny` or `deny_always`: text the model sees. */
	message?: string;
}

/** An answer: a decision, or a decision with a message. */
export type ToolApprovalReply = ApprovalDecision | ToolApprovalAnswer;

/**
 * Answers a request. The signal aborts when the request was decided otherwise (timeout, abort,
 * a rule, a session replacement); an answer after that is ignored. May throw or reject (or
 * answer something that is not a decision): the call is then denied.
 */
export type ApprovalHandler = (
	request: ToolApprovalRequest,
	signal: AbortSignal,
) => ToolApprovalReply | Promise<ToolApprovalReply>;

export type ApprovalEvent =
	| ({ type: "tool_approval_request" } & ToolApprovalRequest)
	| {
			type: "tool_approval_resolved";
			id: string;
			toolCallId: string;
			decision: "allow" | "deny";
			by: DecidedBy;
			/** The rule that decided, or the one `allow_always` or `deny_always` added. */
			rule?: string;
	  };
