import { prestartSearchWorker, warmUpSearchWorker } from "./search/runner.js";

/** A library a tool loads on its first call, which can be loaded ahead instead. */
export interface ToolPreload {
	/** What is loaded (for diagnostics): `edit:diff`. */
	name: string;
	load(): Promise<void>;
}

/** Rounds of warming the search worker's code up (each a step of its own, run only while idle). */
const SEARCH_WARM_UP_ROUNDS = 12;

/**
 * What the named tools load on their first call. grep and find run in a search worker: it is
 * started ahead and kept, and its code is warmed up on its own folder, a round per idle step, so
 * that the first search costs what a later one does. bash loads nothing beyond Node's process
 * spawning.
 */
export function toolPreloads(names: readonly string[]): ToolPreload[] {
	const preloads: ToolPreload[] = [];
	if (names.includes("grep") || names.includes("find")) {
		preloads.push({ name: "search:worker", load: prestartSearchWorker });
		for (let round = 0; round < SEARCH_WARM_UP_ROUNDS; round++) {
			preloads.push({ name: `search:warm-up:${round + 1}`, load: () => warmUpSearchWorker(round) });
		}
	}
	if (names.includes("edit")) {
		preloads.push({
			name: "edit:diff",
			load: async () => {
				await import("./edit-diff.js");
			},
		});
	}
	return preloads;
}
