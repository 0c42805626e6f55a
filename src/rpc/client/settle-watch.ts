import type { AgentMessage } from "../../agent/messages.js";
import { timerDelay } from "../../llm/timer-limit.js";
import type { EventFeed } from "./events.js";
import type { Timeout } from "./pending.js";
import type { IncomingRecord } from "./records.js";
import type { RpcEvent } from "./types.js";

/**
 * Watches the record stream for the end of a prompt lifecycle (`agent_settled`) and collects
 * what happens until then: every event, and the messages of every `agent_end`. It starts
 * collecting at once, or at the success response of a given request id (so a prompt's own
 * events are never missed: they follow its response on the wire). `wait()` turns the watch into
 * a promise; before that nothing rejects, so no rejection can go unhandled.
 */
export class SettleWatch {
	readonly messages: AgentMessage[] = [];
	readonly events: RpcEvent[] = [];
	private collecting: boolean;
	private settled = false;
	private ended = false;
	private waiter: { resolve(): void; reject(error: Error): void } | undefined;
	private timer: ReturnType<typeof setTimeout> | undefined;
	private readonly unsubscribe: () => void;

	constructor(
		records: EventFeed<IncomingRecord>,
		/** Start at this request's success response instead of now. */
		private readonly afterResponseId: string | undefined,
		/** The error to reject with when the process has ended. */
		private readonly endedError: () => Error,
	) {
		this.collecting = afterResponseId === undefined;
		this.ended = records.isEnded;
		const stopListening = records.on((record) => this.onRecord(record));
		const stopEnd = records.onEnd(() => {
			this.ended = true;
			this.waiter?.reject(this.endedError());
		});
		this.unsubscribe = () => {
			stopListening();
			stopEnd();
		};
	}

	/** Resolves at `agent_settled` (or `finish()`); rejects when the process ends or time runs out. */
	wait(timeout: Timeout, timeoutError: () => Error): Promise<void> {
		return new Promise((resolve, reject) => {
			if (this.settled) return resolve();
			if (this.ended) return reject(this.endedError());
			this.waiter = { resolve, reject };
			if (timeout !== false) this.timer = setTimeout(() => this.waiter?.reject(timeoutError()), timerDelay(timeout));
		});
	}

	/** Settles now (the agent was found idle). */
	finish(): void {
		this.settled = true;
		this.waiter?.resolve();
	}

	fail(error: Error): void {
		this.waiter?.reject(error);
	}

	dispose(): void {
		this.unsubscribe();
		if (this.timer) clearTimeout(this.timer);
		this.waiter = undefined;
	}

	private onRecord(record: IncomingRecord): void {
		if (this.settled) return;
		if (record.type === "response") {
			if (!this.collecting && record.success && record.id === this.afterResponseId) this.collecting = true;
			return;
		}
		if (!this.collecting) return;
		this.events.push(record);
		if (record.type === "agent_end") this.messages.push(...record.messages);
		if (record.type === "agent_settled") this.finish();
		// Events were missed (atomic serve): an idle agent means the lifecycle settled in the gap.
		else if (record.type === "resync" && !record.state.isStreaming) this.finish();
	}
}
