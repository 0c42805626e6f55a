export type Listener<E> = (event: E) => void;

/**
 * Delivers events, in order, to listeners and to async iterators, until `end()` (the process
 * exited). A listener that throws does not stop the others: its error goes to `onListenerError`.
 */
export class EventFeed<E> {
	private readonly listeners = new Set<{ listener: Listener<E> }>();
	private readonly endCallbacks = new Set<() => void>();
	private ended = false;

	constructor(private readonly onListenerError: (error: unknown) => void) {}

	get isEnded(): boolean {
		return this.ended;
	}

	/** Adds a listener (the same function may be added twice); returns its removal. */
	on(listener: Listener<E>): () => void {
		// A wrapper per registration, so each removal removes exactly its own.
		const entry = { listener };
		this.listeners.add(entry);
		return () => {
			this.listeners.delete(entry);
		};
	}

	emit(event: E): void {
		for (const entry of [...this.listeners]) {
			try {
				entry.listener(event);
			} catch (error) {
				this.onListenerError(error);
			}
		}
	}

	/** Calls `callback` once at `end()` (never when already ended); returns its removal. */
	onEnd(callback: () => void): () => void {
		const entry = () => callback();
		if (!this.ended) this.endCallbacks.add(entry);
		return () => {
			this.endCallbacks.delete(entry);
		};
	}

	/** No more events: iterators finish after what they buffered; listeners are dropped. */
	end(): void {
		if (this.ended) return;
		this.ended = true;
		this.listeners.clear();
		for (const callback of [...this.endCallbacks]) callback();
		this.endCallbacks.clear();
	}

	/**
	 * An iterator over the events from now on. It subscribes at once (nothing emitted after this
	 * call is missed, even before the first `next()`), buffers what the consumer has not taken yet,
	 * ends after `end()`, and unsubscribes when the consumer stops (`break`, `return`, `throw`).
	 */
	iterate(): AsyncIterableIterator<E> {
		const buffer: E[] = [];
		let waiter: ((result: IteratorResult<E, undefined>) => void) | undefined;
		let finished = this.ended;
		const release = () => {
			const resolve = waiter;
			waiter = undefined;
			resolve?.({ done: true, value: undefined });
		};
		const unsubscribe = this.on((event) => {
			if (waiter) {
				const resolve = waiter;
				waiter = undefined;
				resolve({ done: false, value: event });
			} else buffer.push(event);
		});
		const stopEnd = this.onEnd(() => {
			finished = true;
			release();
		});
		const stop = (): Promise<IteratorResult<E, undefined>> => {
			finished = true;
			buffer.length = 0;
			unsubscribe();
			stopEnd();
			release();
			return Promise.resolve({ done: true, value: undefined });
		};
		const iterator: AsyncIterableIterator<E> = {
			next: () => {
				if (buffer.length > 0) return Promise.resolve({ done: false, value: buffer.shift() as E });
				if (finished) return Promise.resolve({ done: true, value: undefined });
				return new Promise((resolve) => {
					waiter = resolve;
				});
			},
			return: stop,
			throw: (error?: unknown) => {
				void stop();
				return Promise.reject(error);
			},
			[Symbol.asyncIterator]: () => iterator,
		};
		return iterator;
	}
}
