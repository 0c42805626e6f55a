import type { ImageContent } from "../../llm/types.js";
import type { PromptDisposition } from "../../runtime/facade/api-types.js";
import { RpcCommands } from "./commands.js";
import { RpcProcessError, RpcTimeoutError } from "./errors.js";
import type { CallOptions } from "./options.js";
import type { Timeout } from "./pending.js";
import type { CommandResults, PromptOutcome } from "./results.js";
import { SettleWatch } from "./settle-watch.js";

export interface PromptOptions extends CallOptions {
	images?: ImageContent[];
	/** Required while the agent is streaming: queue the prompt as steering or as a follow-up. */
	streamingBehavior?: "steer" | "followUp";
}

export interface WaitOptions {
	/** How long to wait for `agent_settled` (default: no limit; the client's end always ends the wait). */
	timeoutMs?: Timeout;
}

export interface BashOptions extends CallOptions {
	/** Each output delta of this command, in order. */
	onData?: (delta: string, channel: "stdout" | "stderr") => void;
	/** Keep the result in the session but never send it to the model. */
	excludeFromContext?: boolean;
	/** Receives the request id before the command is sent (what abortBash takes). */
	onRequestId?: (requestId: string) => void;
}

/**
 * A typed client for `atomic --mode rpc`: spawns the CLI, correlates each command with its
 * response, and turns `success: false` into RpcCommandError. One method per command; `request()`
 * sends any command, including ones newer than this client.
 *
 *   const client = new RpcClient({ args: ["--no-session"] });
 *   await client.start();
 *   const { messages } = await client.promptAndWait("Hello");
 *   await client.close();
 *
 * With `url` and `token` it speaks to `atomic serve` instead, over WebSocket, with the same
 * methods; it reconnects by itself and delivers each event once, in order:
 *
 *   const client = new RpcClient({ url: "ws://127.0.0.1:4317/ws", token });
 *   const { sessionId } = await client.start();
 */
export class RpcClient<Url extends string | undefined = undefined> extends RpcCommands<Url> {
	// ------------------------------------------------------------------ prompting

	/**
	 * Resolves when the prompt is accepted, with what became of it: `"started"` (a run began),
	 * `"queued"` or `"handled"` (an extension command or hook took it; no run starts). Rejects with
	 * RpcCommandError when it is refused.
	 */
	async prompt(message: string, options: PromptOptions = {}): Promise<PromptDisposition> {
		const { images, streamingBehavior, ...call } = options;
		return (await this.call("prompt", { message, images, streamingBehavior }, call)).disposition;
	}

	/**
	 * Sends a prompt and resolves once its whole lifecycle has settled (`agent_settled`: the run,
	 * retries, queued follow-ups), with every event after acceptance and the messages of every
	 * `agent_end`. A prompt that needs no run (an extension command) resolves with nothing.
	 */
	async promptAndWait(message: string, options: PromptOptions & WaitOptions = {}): Promise<PromptOutcome> {
		const { images, streamingBehavior, timeoutMs } = options;
		const id = this.pending.nextId();
		const watch = this.watch(id);
		try {
			await this.call("prompt", { message, images, streamingBehavior }, {}, id);
			await this.settled(watch, timeoutMs ?? false);
			return { messages: watch.messages, events: watch.events };
		} finally {
			watch.dispose();
		}
	}

	/** Resolves at the next `agent_settled`, or at once when the agent is idle. */
	async waitForIdle(options: WaitOptions = {}): Promise<void> {
		const watch = this.watch(undefined);
		try {
			await this.settled(watch, options.timeoutMs ?? false);
		} finally {
			watch.dispose();
		}
	}

	/**
	 * Runs a shell command; `onData` receives its output deltas as they arrive. Extensions'
	 * `user_bash` hook may answer it instead of the shell.
	 */
	bash(command: string, options: BashOptions = {}): Promise<CommandResults["bash"]> {
		return this.runBash("bash", command, options);
	}

	/** The same as bash, sent as `user_bash` (for hosts that tell typed commands apart). */
	userBash(command: string, options: BashOptions = {}): Promise<CommandResults["user_bash"]> {
		return this.runBash("user_bash", command, options);
	}

	// ------------------------------------------------------------------ bash and waits

	private async runBash(
		type: "bash" | "user_bash",
		command: string,
		options: BashOptions,
	): Promise<CommandResults["bash"]> {
		const { onData, onRequestId, excludeFromContext, ...call } = options;
		const id = this.pending.nextId();
		onRequestId?.(id);
		const stop = onData
			? this.feed.on((event) => {
					if (event.type === "bash_execution_update" && event.id === id) onData(event.delta, event.channel);
				})
			: undefined;
		try {
			return await this.call(type, { command, excludeFromContext }, call, id);
		} finally {
			stop?.();
		}
	}

	private watch(afterResponseId: string | undefined): SettleWatch {
		return new SettleWatch(this.records, afterResponseId, () => this.endedError());
	}

	/**
	 * Waits for the watch's `agent_settled`. A get_state sent now tells whether there is anything
	 * to wait for: records are ordered, so when it reports an idle agent, any `agent_settled` of
	 * the lifecycle was already read; a prompt handled without a run settles this way too.
	 */
	private async settled(watch: SettleWatch, timeout: Timeout): Promise<void> {
		const done = watch.wait(
			timeout,
			() => new RpcTimeoutError("idle", Number(timeout), this.stderrTail, "agent_settled"),
		);
		this.getState().then(
			(state) => {
				if (!state.isStreaming) watch.finish();
			},
			(error: unknown) => watch.fail(error instanceof Error ? error : new Error(String(error))),
		);
		await done;
	}

	private endedError(): Error {
		return this.failure ?? new RpcProcessError("The RPC process ended", null, null, this.stderrTail);
	}
}
