/** What busy work is waiting on, as a heartbeat reports it. */
export type WaitingOn = "provider" | "tool" | "compaction" | "dialog" | "approval";

/** When several things are waited on at once, the one a person or a client can act on wins. */
const PRIORITY: readonly WaitingOn[] = ["approval", "dialog", "tool", "compaction", "provider"];

/**
 * Counts what the session is waiting on right now: a run (the provider, by default), running
 * tools, a compaction, open extension dialogs, open approval requests.
 */
export class Activity {
	private readonly counts = new Map<WaitingOn, number>();

	/** Marks `kind` as waited on; returns the function that ends it (idempotent). */
	enter(kind: WaitingOn): () => void {
		this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
		let left = false;
		return () => {
			if (left) return;
			left = true;
			const count = (this.counts.get(kind) ?? 1) - 1;
			if (count <= 0) this.counts.delete(kind);
			else this.counts.set(kind, count);
		};
	}

	/** The most actionable thing waited on, or undefined when idle. */
	get waitingOn(): WaitingOn | undefined {
		return PRIORITY.find((kind) => this.counts.has(kind));
	}
}
