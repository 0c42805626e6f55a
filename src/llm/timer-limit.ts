/**
 * The longest delay a Node timer takes: 2^31-1 ms (about 24.8 days). A longer one, or one that is
 * not a finite number, fires after 1 ms instead (with a TimeoutOverflowWarning), so every delay
 * that comes from input (a tool argument, an RPC field, a setting, a retry-after header) goes
 * through `timerDelay` first.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/** A delay a timer takes as given: clamped to 0..MAX_TIMER_MS; not a number → `fallback`. */
export function timerDelay(milliseconds: number, fallback = 0): number {
	if (Number.isNaN(milliseconds)) return fallback;
	return Math.min(Math.max(milliseconds, 0), MAX_TIMER_MS);
}
