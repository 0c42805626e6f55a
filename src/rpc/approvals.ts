import type { ApprovalDecision } from "../permissions/index.js";
import type { ToolApprovalAnswer, ToolApprovalRequest } from "../runtime/approvals/tool-approvals.js";

interface Waiting {
	resolve(answer: ToolApprovalAnswer): void;
}

/**
 * The RPC side of tool approvals: the session's approval handler waits here until a
 * `tool_approval_response` names its request. The runtime makes the ids, writes the
 * `tool_approval_request` event and ends a request on timeout, abort or session replacement
 * (its signal aborts, and the request is forgotten here); so an answer to an id that is unknown
 * or already decided is refused.
 */
export class RpcApprovals {
	private readonly waiting = new Map<string, Waiting>();

	/** How many requests wait for an answer from the client. */
	get openRequests(): number {
		return this.waiting.size;
	}

	/** The session's `approve` handler. */
	readonly handler = (request: ToolApprovalRequest, signal: AbortSignal): Promise<ToolApprovalAnswer> =>
		new Promise((resolve) => {
			if (signal.aborted) return;
			this.waiting.set(request.id, { resolve });
			signal.addEventListener("abort", () => this.waiting.delete(request.id), { once: true });
		});

	/** Answers a request; throws, naming the id, when no request with that id is open. */
	answer(requestId: string, decision: ApprovalDecision, message?: string): void {
		const waiting = this.waiting.get(requestId);
		if (!waiting) throw new Error(`No open tool approval request with id "${requestId}" (unknown or already decided)`);
		this.waiting.delete(requestId);
		waiting.resolve(message === undefined ? { decision } : { decision, message });
	}
}
