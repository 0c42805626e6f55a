import type { AssistantMessage, AssistantMessageEvent } from "./types.js";

/**
 * An async-iterable queue of assistant events. The producer pushes events and ends the stream once
 * with a terminal `done` or `error` event; a consumer iterates, or awaits `result()` for the final
 * message. A consumer that stops iterating early does not stop the producer; abort the request's
 * signal for that.
 */
export class AssistantMessageEventStream implements AsyncIterable<AssistantMessageEvent> {
	private readonly queue: AssistantMessageEvent[] = [];
	private waiting: ((result: IteratorResult<AssistantMessageEvent>) => void) | undefined;
	private ended = false;
	private finalMessage: AssistantMessage | undefined;
	private readonly finalWaiters: ((message: AssistantMessage) => void)[] = [];

	/**
	 * The message as accumulated so far. Owned by the producer and mutated in place: read it, never
	 * keep it. Consumers use it for the usage-so-far of a partial reply.
	 */
	partial: AssistantMessage | undefined;

	push(event: AssistantMessageEvent): void {
		if (this.ended) return;
		if (event.type === "done" || event.type === "error") {
			this.ended = true;
			this.finalMessage = event.message;
			for (const waiter of this.finalWaiters.splice(0)) waiter(event.message);
		}
		const waiting = this.waiting;
		if (waiting) {
			this.waiting = undefined;
			waiting({ value: event, done: false });
		} else {
			this.queue.push(event);
		}
	}

	get isEnded(): boolean {
		return this.ended;
	}

	/** Resolves with the final message once the stream has ended. */
	result(): Promise<AssistantMessage> {
		if (this.finalMessage) return Promise.resolve(this.finalMessage);
		return new Promise((resolve) => this.finalWaiters.push(resolve));
	}

	[Symbol.asyncIterator](): AsyncIterator<AssistantMessageEvent> {
		return {
			next: () => {
				const event = this.queue.shift();
				if (event) return Promise.resolve({ value: event, done: false });
				if (this.ended) return Promise.resolve({ value: undefined, done: true });
				return new Promise((resolve) => {
					this.waiting = resolve;
				});
			},
			return: () => Promise.resolve({ value: undefined, done: true }),
		};
	}
}
