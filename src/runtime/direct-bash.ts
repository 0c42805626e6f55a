import type { AgentMessage } from "../agent/messages.js";
import { BashRequests, type BashResult, bashExecutionMessage } from "./bash-requests.js";
import type { SessionSlot } from "./session-slot.js";

export interface DirectBashHost {
	/** The session slot in use now. */
	current(): SessionSlot;
	isStreaming(): boolean;
	cwd(): string;
	/** Records a finished command in the slot's session (and in the conversation when current). */
	record(slot: SessionSlot, message: AgentMessage): void;
}

export interface DirectBashOptions {
	requestId?: string | number;
	/** Kept in the session but never sent to the model. */
	excludeFromContext?: boolean;
	onData?(channel: "stdout" | "stderr", delta: string): void;
	/** Called once the command has started in its session (it can be aborted from then on). Must not throw. */
	onStarted?(): void;
	/** May answer the command instead of the shell (see BashRequestOptions.intercept). */
	intercept?(signal: AbortSignal): Promise<BashResult | undefined>;
}

/**
 * Shell commands a client runs directly (RPC `bash`). Each result is recorded exactly once, in
 * the session where the command started, even when the session was replaced meanwhile; while a
 * run is active the result waits and joins the context with the next prompt.
 */
export class DirectBash {
	readonly requests = new BashRequests();

	constructor(
		private readonly host: DirectBashHost,
		private readonly shell: { shellPath?: string; spillDir?: string } = {},
	) {}

	async execute(command: string, options: DirectBashOptions = {}): Promise<BashResult> {
		const slot = this.host.current();
		slot.acquire();
		try {
			const running = this.requests.run(command, {
				requestId: options.requestId,
				cwd: this.host.cwd(),
				shellPath: this.shell.shellPath,
				spillDir: this.shell.spillDir,
				onData: options.onData,
				intercept: options.intercept,
			});
			// run() registers the request before its first await: it is abortable by now.
			options.onStarted?.();
			const result = await running;
			this.recordIn(slot, command, result, options.excludeFromContext === true);
			return result;
		} finally {
			slot.release();
		}
	}

	private recordIn(slot: SessionSlot, command: string, result: BashResult, excludeFromContext: boolean): void {
		const message = bashExecutionMessage(command, result, excludeFromContext);
		if (slot === this.host.current() && this.host.isStreaming()) slot.pendingBash.push(message);
		else this.host.record(slot, message);
	}

	/** Cancels the request with this id, or all of them. */
	abort(requestId?: string): void {
		this.requests.abort(requestId);
	}

	/** Records the results that waited for the run to end. */
	flushPending(): void {
		const slot = this.host.current();
		for (const message of slot.pendingBash.splice(0)) this.host.record(slot, message);
	}

	/** Cancels every request and waits for each to answer. */
	drain(): Promise<void> {
		return this.requests.drain();
	}
}
