/**
 * Work best done while this process waits for a server's reply: a request has just been written
 * and the event loop would otherwise sit idle until the answer (a model takes hundreds of
 * milliseconds to its first token). Work queued here runs then, once, WAIT_GRACE_MS after the
 * next request is sent; with no request within `fallbackMs` it runs anyway. Queued again under
 * the same key, work replaces what was queued.
 */

/**
 * How long after a request its queued work waits. Not at once: a server on the same machine can
 * answer within a millisecond or two, and work that blocks the event loop for a few (a spawn from
 * a large process) would hold its reply back; a model's first token takes far longer than this.
 */
export const WAIT_GRACE_MS = 10;
interface Queued {
	run: () => void;
	timer: NodeJS.Timeout;
}

const queued = new Map<string, Queued>();

/** Runs `run` while the next request's reply is awaited, or after `fallbackMs`. */
export function duringNetworkWait(key: string, run: () => void, fallbackMs: number): void {
	cancelNetworkWait(key);
	const timer = setTimeout(() => {
		queued.delete(key);
		run();
	}, fallbackMs);
	timer.unref();
	queued.set(key, { run, timer });
}

export function cancelNetworkWait(key: string): void {
	const entry = queued.get(key);
	if (!entry) return;
	clearTimeout(entry.timer);
	queued.delete(key);
}

/** A request was just written (the provider transport calls this): queued work runs now. */
export function networkWaitBegan(): void {
	if (queued.size === 0) return;
	const due = [...queued.values()];
	queued.clear();
	for (const entry of due) clearTimeout(entry.timer);
	setTimeout(() => {
		for (const entry of due) entry.run();
	}, WAIT_GRACE_MS).unref();
}
