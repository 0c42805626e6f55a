import type { BashExecutionMessage } from "../../agent/messages.js";
import type { SessionSlot } from "../current/session-slot.js";
import { BashRequests, type BashResult, bashExecutionMessage } from "./bash-requests.js";

export interface DirectBashHost {
	/** The session in use now and its working directory. */
	current: { readonly slot: SessionSlot; readonly cwd: string };
	runs: { readonly isStreaming: boolean };
	/** Records a finished command in the session where it started. */
	conversation: { bashFinished(slot: SessionSlot, message: BashExecutionMessage, runActive: boolean): void };
}

export interface DirectBashOptions {
	requestId?: string | number;
	/** Kept in the session but never sent to the model. */
	excludeFromContext?: boolean;
	/** A promise returned pauses the command's output until it settles (see ShellRunOptions.onData). */
	onData?(channel: "stdout" | "stderr", delta: string): void | Promise<void>;
	/** Called once the command has started in its session (it can be aborted from then on). Must not throw. */
	onStarted?(): void;
	/** May answer the command instead of the shell (see BashRequestOptions.intercept). */
	intercept?(signal: AbortSignal): Promise<BashResult | undefined>;
}

/**
 * Shell commands a client runs directly (RPC `bash`). Each result is recorded exactly once, in
 * the session where the command started, even when the session was replaced meanwhile; while a
 * run is active the result waits for the run to end, then is recorded and joins the context.
 */
export class DirectBash {
	readonly requests = new BashRequests();

	constructor(
		private readonly host: DirectBashHost,
		private readonly shell: { shellPath?: string; spillDir?: string; shellEnv?: NodeJS.ProcessEnv } = {},
	) {}

	async execute(command: string, options: DirectBashOptions = {}): Promise<BashResult> {
		const slot = this.host.current.slot;
		slot.acquire();
		try {
			const running = this.requests.run(command, {
				requestId: options.requestId,
				cwd: this.host.current.cwd,
				shellPath: this.shell.shellPath,
				env: this.shell.shellEnv,
				spillDir: this.shell.spillDir,
				onData: options.onData,
				intercept: options.intercept,
			});
			// run() registers the request before its first await: it is abortable by now.
			options.onStarted?.();
			const result = await running;
			const message = bashExecutionMessage(command, result, options.excludeFromContext === true);
			this.host.conversation.bashFinished(slot, message, this.host.runs.isStreaming);
			return result;
		} finally {
			slot.release();
		}
	}

	/** Cancels the request with this id, or all of them. */
	abort(requestId?: string): void {
		this.requests.abort(requestId);
	}

	/** Cancels every request and waits for each to answer. */
	drain(): Promise<void> {
		return this.requests.drain();
	}
}
