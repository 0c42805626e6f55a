import { runShell } from "./shell.js";

/** A library a tool loads on its first call, which can be loaded ahead instead. */
export interface ToolPreload {
	/** What is loaded (for diagnostics): `edit:diff`. */
	name: string;
	load(): Promise<void>;
}

/**
 * What the named tools load on the main thread on their first call. grep and find load their glob
 * and ignore libraries inside the search worker, which is started per search: nothing to do here.
 * bash runs `exit 0` once in `cwd` with the default shell, so that its first call finds Node's
 * process spawning code compiled, the shell in the page cache and a spare shell waiting for it
 * (shell-spare.ts).
 */
export function toolPreloads(names: readonly string[], cwd: string): ToolPreload[] {
	const preloads: ToolPreload[] = [];
	if (names.includes("bash")) {
		preloads.push({
			name: "bash:spawn",
			load: async () => {
				await runShell({ command: "exit 0", cwd, timeoutMs: 5000 });
			},
		});
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
