import { debugIdle, IdleWork } from "./idle-work.js";

/** Quiet time after a burst of work (a prompt) before memory is given back. */
export const RELEASE_IDLE_MS = 5000;

/**
 * Gives memory back once the process has been idle for RELEASE_IDLE_MS after a burst of work:
 * `release` is the CLI's (a full collection when the heap has grown; it says whether it collected).
 * `workEnded` after each prompt; input and work meanwhile push the release back. With
 * ATOMIC_DEBUG_IDLE=1, stderr says `idle: release-memory collected` or `skipped`.
 */
export class MemoryRelease {
	private waiting: IdleWork | undefined;

	constructor(
		private readonly release: () => boolean,
		private readonly isBusy: () => boolean,
	) {}

	/** A burst of work ended: release once idle (one release waits at a time). */
	workEnded(): void {
		if (this.waiting && this.waiting.remaining > 0) return;
		const run = () => {
			const collected = this.release();
			if (debugIdle()) process.stderr.write(`idle: release-memory ${collected ? "collected" : "skipped"}\n`);
		};
		this.waiting = new IdleWork([{ name: "release-memory", run }], { idleMs: RELEASE_IDLE_MS, isBusy: this.isBusy });
		this.waiting.start();
	}

	/** Input arrived: the release waits for quiet again. */
	touch(): void {
		this.waiting?.touch();
	}

	stop(): void {
		this.waiting?.stop();
	}
}
