import type { AssistantMessage, ToolCall } from "../llm/types.js";
import { type LoopOptions, runLoop } from "./loop.js";
import { MessageQueue, type QueuedMessage, type QueueMode } from "./message-queue.js";
import type { AgentMessage } from "./messages.js";
import { QueueUpdates } from "./queue-updates.js";
import { RetryPolicy } from "./retry.js";
import type { AgentEvent, AgentEventSink, AgentLoopConfig } from "./types.js";

/** The signal of a run nobody can abort. */
const NEVER = new AbortController().signal;

export const BUSY_MESSAGE =
	"Agent is already processing. Wait for it to finish, or queue the message as steering or a follow-up.";

export interface AgentOptions {
	config: Omit<AgentLoopConfig, "getSteeringMessages" | "getFollowUpMessages">;
	messages?: AgentMessage[];
	steeringMode?: QueueMode;
	followUpMode?: QueueMode;
	retry?: RetryPolicy;
	/**
	 * Receives a listener's failure on an event no run waits for (queue_update); must not throw.
	 * Default: console.error. Failures on a run's events end that run instead (see runLoop).
	 */
	reportListenerError?(error: unknown): void;
}

/**
 * The stateful face of the loop: the conversation, the steering and follow-up queues, the retry
 * policy, one run at a time, and event fan-out to subscribers. Cancellation belongs to the caller:
 * each run is given the signal that ends it.
 */
export class Agent {
	readonly config: AgentLoopConfig;
	messages: AgentMessage[];
	readonly steering: MessageQueue;
	readonly followUp: MessageQueue;
	readonly retry: RetryPolicy;
	/** While true, queued messages are not delivered (they wait for a resume). */
	holdQueues = false;
	private readonly listeners = new Set<AgentEventSink>();
	private active: { done: Promise<void> } | undefined;
	private readonly queueUpdates = new QueueUpdates(() => this.sendQueue());
	private readonly reportListenerError: (error: unknown) => void;

	constructor(options: AgentOptions) {
		this.steering = new MessageQueue(options.steeringMode);
		this.followUp = new MessageQueue(options.followUpMode);
		this.retry = options.retry ?? new RetryPolicy();
		this.messages = options.messages ?? [];
		this.reportListenerError = options.reportListenerError ?? ((error) => console.error(error));
		// Not a spread: the given config may read its fields live (getters), and must keep doing so.
		this.config = Object.assign(Object.create(options.config) as AgentLoopConfig, {
			getSteeringMessages: () => this.takeFrom(this.steering),
			getFollowUpMessages: () => this.takeFrom(this.followUp),
		});
	}

	get isRunning(): boolean {
		return this.active !== undefined;
	}

	/** Adds a listener; returns the function that removes it. */
	subscribe(listener: AgentEventSink): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/**
	 * Runs the loop with new prompt messages until `signal` fires or the run ends. Throws when a
	 * run is already active.
	 */
	prompt(messages: AgentMessage | AgentMessage[], signal: AbortSignal = NEVER): Promise<AgentMessage[]> {
		return this.start(Array.isArray(messages) ? messages : [messages], false, signal);
	}

	/**
	 * Runs the loop without a new prompt: queued steering (else follow-up) messages are delivered;
	 * with nothing queued the model is asked to continue from the conversation as it stands.
	 */
	continue(signal: AbortSignal = NEVER): Promise<AgentMessage[]> {
		if (this.active) return Promise.reject(new Error(BUSY_MESSAGE));
		return this.start(this.takeQueued(), true, signal);
	}

	/**
	 * Runs the loop starting with `calls`, tool calls of `assistant` (the conversation's last reply)
	 * that a run which ended early left without results; then it goes on as after any tool calls.
	 */
	resume(assistant: AssistantMessage, calls: ToolCall[], signal: AbortSignal = NEVER): Promise<AgentMessage[]> {
		if (this.active) return Promise.reject(new Error(BUSY_MESSAGE));
		return this.start([], true, signal, { assistant, calls });
	}

	queueSteering(message: AgentMessage, text: string): QueuedMessage {
		const item = this.steering.enqueue(message, text);
		this.queueUpdates.changed();
		return item;
	}

	queueFollowUp(message: AgentMessage, text: string): QueuedMessage {
		const item = this.followUp.enqueue(message, text);
		this.queueUpdates.changed();
		return item;
	}

	/** Empties both queues and returns what they held. */
	clearQueues(): { steering: QueuedMessage[]; followUp: QueuedMessage[] } {
		const cleared = { steering: this.steering.clear(), followUp: this.followUp.clear() };
		if (cleared.steering.length + cleared.followUp.length > 0) this.queueUpdates.changed();
		return cleared;
	}

	get queuedCount(): number {
		return this.steering.size + this.followUp.size;
	}

	/** Resolves when no run is active. */
	async waitForIdle(): Promise<void> {
		while (this.active) await this.active.done;
	}

	private async start(
		prompts: AgentMessage[],
		skipInitialSteering: boolean,
		signal: AbortSignal,
		resume?: LoopOptions["resume"],
	): Promise<AgentMessage[]> {
		if (this.active) throw new Error(BUSY_MESSAGE);
		const { promise: done, resolve: finish } = settledSignal();
		this.active = { done };
		// The run's own signal follows `signal` only while the run lasts: what the run left behind
		// (a command's background processes listen to it) is not ended by a later run's abort.
		const runAbort = new AbortController();
		const forward = () => runAbort.abort(signal.reason);
		if (signal.aborted) forward();
		else signal.addEventListener("abort", forward, { once: true });
		const run = {
			config: this.config,
			messages: this.messages,
			sink: this.sink,
			signal: runAbort.signal,
			retry: this.retry,
			reportError: this.reportListenerError,
		};
		try {
			const added = await runLoop(run, prompts, { skipInitialSteering, resume });
			// Messages queued after the run's last delivery point start another run right away.
			while (!signal.aborted && !this.holdQueues && this.queuedCount > 0) {
				added.push(...(await runLoop(run, this.takeQueued(), { skipInitialSteering: true })));
			}
			return added;
		} finally {
			signal.removeEventListener("abort", forward);
			this.active = undefined;
			finish();
		}
	}

	/**
	 * Hands an event to every listener. A listener that throws does not keep the event from the
	 * others: the first error is rethrown once all have it (the loop then ends the run cleanly).
	 */
	private readonly sink: AgentEventSink = (event: AgentEvent) => {
		if (event.type !== "queue_update") this.queueUpdates.flush();
		let pending: Promise<void>[] | undefined;
		let failure: { error: unknown } | undefined;
		for (const listener of this.listeners) {
			let result: void | Promise<void>;
			try {
				result = listener(event);
			} catch (error) {
				failure ??= { error };
				continue;
			}
			if (!result) continue;
			pending ??= [];
			pending.push(result);
		}
		if (failure) throw failure.error;
		return pending ? Promise.all(pending).then(() => undefined) : undefined;
	};

	private takeQueued(): AgentMessage[] {
		const steering = this.takeFrom(this.steering);
		return steering.length > 0 ? steering : this.takeFrom(this.followUp);
	}

	private takeFrom(queue: MessageQueue): AgentMessage[] {
		if (this.holdQueues) return [];
		const taken = queue.take();
		if (taken.length > 0) this.queueUpdates.changedNow();
		return taken.map((item) => item.message);
	}

	/** Emits the queues as they are. No run waits on this event, so a listener's failure is reported. */
	private sendQueue(): void {
		const report = this.reportListenerError;
		try {
			this.sink({ type: "queue_update", steering: this.steering.list(), followUp: this.followUp.list() })?.catch(
				report,
			);
		} catch (error) {
			report(error);
		}
	}
}

/** A promise plus the function that resolves it. */
function settledSignal(): { promise: Promise<void>; resolve: () => void } {
	let resolve: () => void = () => undefined;
	const promise = new Promise<void>((done) => {
		resolve = done;
	});
	return { promise, resolve };
}
