/**
 * Makes sure dist/ is built from the current sources before the end-to-end tests spawn the CLI:
 * rebuilds (bundle only) when dist/cli.js is missing or older than any file under src/.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

function newestMtime(dir: string): number {
	let newest = 0;
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		const mtime = entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs;
		if (mtime > newest) newest = mtime;
	}
	return newest;
}

export default function setup(): void {
	const cli = "dist/cli.js";
	const stale = !existsSync(cli) || statSync(cli).mtimeMs < newestMtime("src");
	if (!stale) return;
	const result = spawnSync(process.execPath, ["scripts/build.mjs", "--no-types"], { stdio: "inherit" });
	if (result.status !== 0) throw new Error("build failed before the tests");
}
