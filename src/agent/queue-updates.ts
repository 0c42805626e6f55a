/**
 * When the queues' `queue_update` goes out. Every update lists both whole queues, so one per change
 * made a burst of n queued messages cost n² items of output. The first change in a turn of the
 * event loop is still reported at once (a lone `steer` sees its update before its response); the
 * changes after it in the same turn are reported together, with the state they left, at the end of
 * the turn, or earlier when another event of the agent has to follow them.
 */
export class QueueUpdates {
	private windowOpen = false;
	private pending = false;

	/** `send` emits one update with the queues as they are now. */
	constructor(private readonly send: () => void) {}

	/** A queue changed (a message queued or cleared). */
	changed(): void {
		if (this.windowOpen) {
			this.pending = true;
			return;
		}
		this.openWindow();
		this.send();
	}

	/** A change that must be reported before what follows it (a delivery): sent at once. */
	changedNow(): void {
		this.pending = false;
		if (!this.windowOpen) this.openWindow();
		this.send();
	}

	/** Sends the coalesced update, if any (before any other event, so that the order holds). */
	flush(): void {
		if (!this.pending) return;
		this.pending = false;
		this.send();
	}

	private openWindow(): void {
		this.windowOpen = true;
		setImmediate(() => {
			this.windowOpen = false;
			this.flush();
		});
	}
}
