import type { BashExecutionMessage } from "../../agent/messages.js";
import { runShell, type ShellRunOptions, type ShellRunResult } from "../../tools/shell.js";

/** What a direct bash command returns to its caller. */
export interface BashResult {
	output: string;
	/** Absent when the command was cancelled or ended by a signal. */
	exitCode?: number;
	cancelled: boolean;
	truncated: boolean;
	fullOutputPath?: string;
}

export interface BashRequestOptions {
	/** The client's id for the request; abort(requestId) targets it. */
	requestId?: string | number;
	cwd: string;
	env?: NodeJS.ProcessEnv;
	shellPath?: string;
	spillDir?: string;
	/** A promise returned pauses the command's output until it settles (see ShellRunOptions.onData). */
	onData?(channel: "stdout" | "stderr", delta: string): void | Promise<void>;
	/**
	 * Runs first, once the request is registered (so it can already be aborted): a result it
	 * returns answers the request and no shell runs (an extension's user_bash hook).
	 */
	intercept?(signal: AbortSignal): Promise<BashResult | undefined>;
}

interface Running {
	requestId: string | undefined;
	controller: AbortController;
	done: Promise<unknown>;
}

type Runner = (options: ShellRunOptions) => Promise<ShellRunResult>;

/**
 * The shell commands clients run directly (RPC `bash`). Several may run at once; each can be
 * cancelled by its request id, or all together. Requests do not belong to any session here:
 * the caller decides where each result is recorded.
 */
export class BashRequests {
	private readonly running = new Set<Running>();

	constructor(private readonly runner: Runner = runShell) {}

	get activeCount(): number {
		return this.running.size;
	}

	/** Runs a command to completion (or cancellation). Rejects only when it cannot start. */
	async run(command: string, options: BashRequestOptions): Promise<BashResult> {
		const controller = new AbortController();
		const entry: Running = {
			requestId: options.requestId === undefined ? undefined : String(options.requestId),
			controller,
			done: Promise.resolve(),
		};
		if (options.intercept) {
			this.running.add(entry);
			try {
				const answer = await options.intercept(controller.signal);
				if (answer) return answer;
				if (controller.signal.aborted) return { output: "", cancelled: true, truncated: false };
			} finally {
				this.running.delete(entry);
			}
		}
		const execution = this.runner({
			command,
			cwd: options.cwd,
			env: options.env,
			shellPath: options.shellPath,
			spillDir: options.spillDir,
			signal: controller.signal,
			onData: options.onData,
		});
		entry.done = execution.catch(() => undefined);
		this.running.add(entry);
		try {
			const result = await execution;
			const bash: BashResult = { output: result.output, cancelled: result.cancelled, truncated: result.truncated };
			if (!result.cancelled && result.exitCode !== undefined) bash.exitCode = result.exitCode;
			if (result.fullOutputPath) bash.fullOutputPath = result.fullOutputPath;
			return bash;
		} finally {
			this.running.delete(entry);
		}
	}

	/** Cancels the request with this id, or every request when no id is given. */
	abort(requestId?: string): void {
		for (const entry of this.running) {
			if (requestId === undefined || entry.requestId === requestId) entry.controller.abort();
		}
	}

	/** Cancels everything and waits until each request has finished. */
	async drain(): Promise<void> {
		this.abort();
		await Promise.all([...this.running].map((entry) => entry.done));
	}
}

/** The message recorded in the session for a finished command. */
export function bashExecutionMessage(
	command: string,
	result: BashResult,
	excludeFromContext: boolean,
): BashExecutionMessage {
	const message: BashExecutionMessage = {
		role: "bashExecution",
		command,
		output: result.output,
		cancelled: result.cancelled,
		truncated: result.truncated,
		timestamp: Date.now(),
	};
	if (result.exitCode !== undefined) message.exitCode = result.exitCode;
	if (result.fullOutputPath) message.fullOutputPath = result.fullOutputPath;
	if (excludeFromContext) message.excludeFromContext = true;
	return message;
}
