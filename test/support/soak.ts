/**
 * The long stress runs (hundreds of SIGKILLs, seeded aborts, the whole conformance suite under a
 * recorder) run at full size under `npm run soak` (ATOMIC_SOAK=1, as CI does); `npm test` runs a
 * small sample of each, so every one of them is exercised on every test run.
 */
export const SOAK = process.env.ATOMIC_SOAK === "1";

/** `full` under `npm run soak`, `sample` otherwise. */
export function soakSize(full: number, sample: number): number {
	return SOAK ? full : sample;
}
