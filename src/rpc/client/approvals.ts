import { RpcCommandError, RpcConnectionError, RpcProcessError } from "./errors.js";
import type { ToolApprovalAnswer, ToolApprovalReply, ToolApprovalRequestEvent } from "./types.js";

/**
 * Decides a tool approval request: return `"allow"`, `"allow_always"`, `"deny"`, `"deny_always"` or
 * `{ decision, message }` (the message reaches the model with a deny). The signal aborts when the
 * request was decided otherwise (timeout, abort, a rule, a session replacement): the answer is then
 * not sent. A throw or rejection is reported through `onError` and denies the call.
 */
export type ApprovalRequestHandler = (
	request: ToolApprovalRequestEvent,
	signal: AbortSignal,
) => ToolApprovalReply | Promise<ToolApprovalReply>;

function answerOf(reply: ToolApprovalReply): ToolApprovalAnswer {
	return typeof reply === "string" ? { decision: reply } : reply;
}

/**
 * Routes `tool_approval_request` events to the one registered handler and sends its answer as a
 * `tool_approval_response`. Without a handler nothing is answered: the host may answer with
 * `respondToApproval` from its own event listener, or the request times out.
 */
export class ApprovalResponder {
	private handler: ApprovalRequestHandler | undefined;
	private readonly open = new Map<string, AbortController>();

	constructor(
		/** Sends the answer; rejects like any command. */
		private readonly respond: (requestId: string, answer: ToolApprovalAnswer) => Promise<void>,
		private readonly onError: (error: unknown) => void,
	) {}

	/** Sets the handler (replacing the previous one); returns its removal. */
	setHandler(handler: ApprovalRequestHandler): () => void {
		this.handler = handler;
		return () => {
			if (this.handler === handler) this.handler = undefined;
		};
	}

	handle(request: ToolApprovalRequestEvent): void {
		const handler = this.handler;
		if (!handler) return;
		const controller = new AbortController();
		this.open.set(request.id, controller);
		void this.run(handler, request, controller.signal).then((answer) => {
			if (controller.signal.aborted) return;
			this.open.delete(request.id);
			return this.respond(request.id, answer).catch((error: unknown) => {
				// Decided meanwhile (a timeout crossed the answer), or the process or connection is gone: nothing to do.
				if (error instanceof RpcCommandError || error instanceof RpcProcessError || error instanceof RpcConnectionError)
					return;
				this.onError(error);
			});
		});
	}

	/** The request was decided (`tool_approval_resolved`): a handler still deciding is told to stop. */
	resolved(requestId: string): void {
		const controller = this.open.get(requestId);
		if (!controller) return;
		this.open.delete(requestId);
		controller.abort();
	}

	private async run(
		handler: ApprovalRequestHandler,
		request: ToolApprovalRequestEvent,
		signal: AbortSignal,
	): Promise<ToolApprovalAnswer> {
		try {
			return answerOf(await handler(request, signal));
		} catch (error) {
			this.onError(error);
			return { decision: "deny" };
		}
	}
}
