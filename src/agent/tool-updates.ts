/**
 * One tool call's progress updates, delivered one at a time. An update whose delivery returns a
 * pending promise (a slow reader of the events) is the one in flight; updates that arrive
 * meanwhile wait in a single slot, the newest replacing the one before, and the newest goes out
 * once the one in flight is taken. Each update carries the whole result so far, so only
 * intermediate states are skipped, and memory stays bounded however fast the tool reports.
 */
export class ToolUpdates<T> {
	#inFlight: Promise<void> | undefined;
	#waiting: { update: T } | undefined;
	#failure: { error: unknown } | undefined;
	#closed = false;

	/** `deliver` hands an update to the listeners; a promise returned means "not taken yet". */
	constructor(private readonly deliver: (update: T) => Promise<void> | undefined) {}

	/** Never throws: a delivery failure is kept for close(), and later updates are dropped. */
	push(update: T): void {
		if (this.#closed || this.#failure) return;
		if (this.#inFlight) {
			this.#waiting = { update };
			return;
		}
		this.#send(update);
	}

	/**
	 * Accepts no more updates; resolves once the waiting one (if any) was delivered, so that it
	 * precedes the call's end. Rejects with the first delivery failure.
	 */
	async close(): Promise<void> {
		this.#closed = true;
		while (this.#inFlight) await this.#inFlight;
		if (this.#failure) throw this.#failure.error;
	}

	#send(update: T): void {
		let pending: Promise<void> | undefined;
		try {
			pending = this.deliver(update);
		} catch (error) {
			this.#failure ??= { error };
			return;
		}
		if (!pending) return;
		const inFlight: Promise<void> = pending.then(
			() => this.#taken(inFlight),
			(error: unknown) => {
				this.#failure ??= { error };
				this.#taken(inFlight);
			},
		);
		this.#inFlight = inFlight;
	}

	#taken(inFlight: Promise<void>): void {
		if (this.#inFlight === inFlight) this.#inFlight = undefined;
		const waiting = this.#waiting;
		this.#waiting = undefined;
		if (waiting && !this.#failure) this.#send(waiting.update);
	}
}
