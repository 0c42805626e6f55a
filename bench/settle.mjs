// What every timed run of the bench starts from, an agent's or a floor's: a full collection of the
// bench's own heap (so that its pause does not fall inside a run), then SETTLE_MS of quiet.
//
// The quiet is part of the method, not a delay for its own sake: on this kind of machine a process
// that has slept for even 20 ms runs its next work markedly slower (the mock's own 20-token round
// trip, measured by a bare client, goes from ~1.6 ms back to back to ~2.4-3.1 ms after 20-200 ms
// idle; a fixed CPU-only workload takes ~25% longer). An agent's run always follows a pause (the
// collection, the other agents' runs), so a floor measured back to back would be a faster machine
// than the one the agents ran on.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

export const SETTLE_MS = 20;

setFlagsFromString("--expose-gc");
/** A full collection of the bench's own heap (the records of the last run, a peer's echoes of a big prompt). */
export const collectGarbage = runInNewContext("gc");

/** A collection, then SETTLE_MS of quiet: run before each timed run. */
export async function settle() {
	collectGarbage();
	await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
}
