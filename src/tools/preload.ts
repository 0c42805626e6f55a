/** A library a tool loads on its first call, which can be loaded ahead instead. */
export interface ToolPreload {
	/** What is loaded (for diagnostics): `edit:diff`. */
	name: string;
	load(): Promise<void>;
}

/**
 * What the named tools load on the main thread on their first call. grep and find load their glob
 * and ignore libraries inside the search worker, which is started per search: nothing to do here.
 */
export function toolPreloads(names: readonly string[]): ToolPreload[] {
	const preloads: ToolPreload[] = [];
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
