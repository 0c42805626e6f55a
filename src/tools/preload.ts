import { prestartSearchWorker } from "./search/runner.js";

/** A library a tool loads on its first call, which can be loaded ahead instead. */
export interface ToolPreload {
	/** What is loaded (for diagnostics): `edit:diff`. */
	name: string;
	load(): Promise<void>;
}

/**
 * What the named tools load on their first call. grep and find run in a search worker: it is
 * started ahead, and kept (it warms its code up on its own folder while it waits), so that the
 * first search costs what a later one does. bash loads nothing beyond Node's process spawning.
 */
export function toolPreloads(names: readonly string[]): ToolPreload[] {
	const preloads: ToolPreload[] = [];
	if (names.includes("grep") || names.includes("find")) {
		preloads.push({ name: "search:worker", load: prestartSearchWorker });
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
