import type { Agent } from "../../agent/agent.js";
import type { AgentMessage } from "../../agent/messages.js";
import type { AutoCompaction } from "../compaction/auto-compaction.js";
import type { ExtensionBridge } from "../extensions/bridge.js";
import type { ModelFallback } from "../models/model-fallback.js";
import type { AbortTree, Operation } from "./abort-tree.js";
import type { Activity } from "./activity.js";
import type { InterruptedCalls } from "./interrupted-calls.js";
import { type PromptOwner, type RunStart, startRun } from "./run-start.js";

export const RUN_IN_PROGRESS = "A prompt is already running.";

/** What a prompt's lifecycle drives. */
export interface PromptRunParts {
	agent: Agent;
	tree: AbortTree;
	activity: Activity;
	autoCompaction: AutoCompaction;
	fallback: ModelFallback;
	/** Bash results that waited for the run are recorded when it ends (and, at the latest, before the next). */
	conversation: { flushPendingBash(): void };
	events: { emit(event: { type: "agent_settled" }): Promise<void> | undefined };
	/** `before_agent_start` may add messages and replace the system prompt for a run. */
	extensions: ExtensionBridge;
	prompt: PromptOwner;
}

/** One prompt's lifecycle: its operation (the root of everything it cancels) and what it waits on. */
export interface PromptRun {
	readonly operation: Operation;
}

/**
 * Runs prompt lifecycles, one at a time: the run itself, the compaction before it when the last
 * reply is over the threshold, automatic compaction and the continuations after it, then
 * agent_settled. Each lifecycle has one operation of the abort tree; its signal reaches the
 * provider requests, the tools, the compactions and the retry delays of that lifecycle.
 */
export class PromptRuns {
	private current: PromptRun | undefined;

	constructor(private readonly parts: PromptRunParts) {}

	/** True from a prompt's acceptance until its lifecycle settles. */
	get isStreaming(): boolean {
		return this.current !== undefined;
	}

	get active(): PromptRun | undefined {
		return this.current;
	}

	/**
	 * Runs one lifecycle with accepted messages (or "continue": queued messages, else carry on).
	 * `operation` was started when the prompt arrived, so an abort during its acceptance reaches
	 * it (the run then starts aborted and ends at once, recorded); absent, one is started now.
	 * `onAccepted` is called before any event of the run.
	 */
	async run(
		messages: AgentMessage[] | "continue" | { resume: InterruptedCalls },
		operation: Operation = this.parts.tree.start(),
		onAccepted?: () => void,
	): Promise<void> {
		if (this.current) {
			operation.finish();
			throw new Error(RUN_IN_PROGRESS);
		}
		const run: PromptRun = { operation };
		this.current = run;
		const leave = this.parts.activity.enter("provider");
		const { agent, autoCompaction } = this.parts;
		let start: RunStart | undefined;
		try {
			this.parts.conversation.flushPendingBash();
			onAccepted?.();
			const signal = operation.signal;
			autoCompaction.startPrompt();
			if (Array.isArray(messages)) {
				await autoCompaction.beforePrompt(signal);
				// Without before_agent_start handlers this answers at once: the run starts as before.
				const starting = startRun(this.parts.extensions, this.parts.prompt, messages);
				start = starting instanceof Promise ? await starting : starting;
				await agent.prompt(start.messages, signal);
			} else if (messages === "continue") await agent.continue(signal);
			else await agent.resume(messages.resume.assistant, messages.resume.calls, signal);
			while (!signal.aborted && (await this.goesOn(signal))) await agent.continue(signal);
		} finally {
			start?.restore();
			this.current = undefined;
			leave();
			this.parts.conversation.flushPendingBash();
			await this.parts.events.emit({ type: "agent_settled" });
			operation.finish();
		}
	}

	/**
	 * After a run: whether the prompt goes on with another (after an overflow was compacted, to
	 * deliver messages queued meanwhile, or on a fallback model after a failure for good).
	 */
	private async goesOn(signal: AbortSignal): Promise<boolean> {
		const { agent, autoCompaction, fallback } = this.parts;
		const next = await autoCompaction.afterRun(signal);
		if (signal.aborted) return false;
		if (next === "continue") return true;
		if (next === "deliverQueued" && agent.queuedCount > 0) return true;
		const last = agent.messages.at(-1);
		return fallback.afterRun(last?.role === "assistant" ? last : undefined, next === "unresolvedOverflow");
	}
}
