import { PerformanceObserver } from "node:perf_hooks";
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { changeV8Flag } from "../platform/v8-flags.js";

const MB = 1024 * 1024;
/** Largest semi-space V8 may grow the young generation to (its default is 16 MB, for throughput). */
export const MAX_SEMI_SPACE_MB = 4;
/** Heap growth since the last idle release below which another is not worth a full collection. */
const RELEASE_GROWTH_BYTES = 16 * MB;

function newSpaceBytes(): number {
	return getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0;
}

/**
 * Keeps V8's young generation at most MAX_SEMI_SPACE_MB per semi-space, the runtime equivalent of
 * `node --max-semi-space-size=4` (which a CLI started as `atomic` cannot pass): once the new space
 * has grown to that size, it stops growing. V8 grows it to 16 MB per semi-space within the first
 * prompts of a session and never gives those pages back: a long-lived agent would carry them in
 * its RSS for good, and a smaller young generation costs it no CPU time it would notice.
 */
export function capYoungGeneration(): void {
	const limit = 2 * MAX_SEMI_SPACE_MB * MB;
	const reached = (): boolean => {
		if (newSpaceBytes() < limit) return false;
		// V8's default factor is 2. The CLI's code cache is compiled under the default (v8-flags.ts).
		changeV8Flag("semi-space-growth-factor", "1", "2");
		if (process.env.ATOMIC_DEBUG_IDLE === "1") process.stderr.write("heap: young generation capped\n");
		return true;
	};
	if (reached()) return;
	const observer = new PerformanceObserver(() => {
		if (reached()) observer.disconnect();
	});
	observer.observe({ entryTypes: ["gc"] });
}

let collect: (() => void) | undefined;

/** A full collection: `gc` of a context made while --expose-gc was on (off again at once). */
function fullCollection(): void {
	if (!collect) {
		setFlagsFromString("--expose-gc");
		const gc: unknown = runInNewContext("gc");
		setFlagsFromString("--no-expose-gc");
		if (typeof gc !== "function") throw new Error("This Node does not expose gc()");
		collect = () => Reflect.apply(gc, undefined, []);
	}
	collect();
}

/** The heap's size right after the last release (0: none yet). */
let releasedAt = 0;

/**
 * Gives back, once a session is idle, the heap a burst of work left behind: a full collection when
 * the heap has grown by RELEASE_GROWTH_BYTES since the last one (V8 keeps the garbage of old space
 * and the pages it grew until its next major collection, which an idle process never reaches).
 * Returns whether it collected.
 */
export function releaseIdleMemory(): boolean {
	if (process.memoryUsage().heapTotal < releasedAt + RELEASE_GROWTH_BYTES) return false;
	fullCollection();
	releasedAt = process.memoryUsage().heapTotal;
	return true;
}
