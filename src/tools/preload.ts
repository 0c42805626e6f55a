/** A library a tool loads on its first call, which can be loaded ahead instead. */
export interface ToolPreload {
	/** What is loaded (for diagnostics): `edit:diff`. */
	name: string;
	load(): Promise<void>;
}

/**
 * What the named tools load on the main thread on their first call. grep and find load their
 * libraries inside the search worker; bash loads nothing beyond Node's process spawning.
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
