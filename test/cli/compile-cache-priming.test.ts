import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { primeCompileCache, primeRuns } from "../../scripts/compile-cache.mjs";
import { startPrimeServer } from "../../scripts/prime-server.mjs";
import { CLI } from "../support/rpc-process.js";

// The install writes the code cache by running the CLI a few times (scripts/compile-cache.mjs). A run
// that fails must cost only its part of the cache: a warning, and the other runs still write theirs.

const dirs: string[] = [];
afterEach(() => {
	vi.restoreAllMocks();
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A copy of dist/ without its code cache: the runs write theirs into it, not into the one the other tests use. */
function distCopy(): { cli: string; cache: string } {
	const dir = mkdtempSync(join(tmpdir(), "atomic-prime-"));
	dirs.push(dir);
	const dist = join(dir, "dist");
	cpSync(dirname(CLI), dist, {
		recursive: true,
		filter: (path) => !path.endsWith(".map") && !path.includes("/types") && !path.includes("/compile-cache"),
	});
	// As in the package: the search worker is found from the package's manifest above dist/.
	writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "atomic-agent" }));
	return { cli: join(dist, "cli.js"), cache: join(dist, "compile-cache") };
}

describe("priming the code cache", () => {
	it("warns about a run that fails and goes on with the others", async () => {
		const server = await startPrimeServer();
		const warnings: string[] = [];
		vi.spyOn(console, "warn").mockImplementation((message: string) => void warnings.push(message));
		try {
			const { cli, cache } = distCopy();
			const runs = primeRuns(server.baseUrl);
			// One run is given an argument the CLI refuses: it exits at once, before its work.
			const broken = runs.map((run, index) => (index === 1 ? { ...run, args: [...run.args, "--no-such-flag"] } : run));
			const failed = await primeCompileCache(cli, broken, 30_000);
			expect(failed).toEqual([runs[1]?.name]);
			// The other runs wrote their caches.
			expect(readdirSync(join(cache, readdirSync(cache)[0] ?? "")).length).toBeGreaterThan(5);
		} finally {
			await server.close();
		}
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).toMatch(
			/^Warning: the code cache's \S+ run failed, so the chunks it covers are compiled at run time instead: it exited with 1/,
		);
	});

	it("warns about a run that misses its deadline, and stops it", async () => {
		const warnings: string[] = [];
		vi.spyOn(console, "warn").mockImplementation((message: string) => void warnings.push(message));
		const { cli } = distCopy();
		// A run whose work is never done: its condition never holds.
		const never = { name: "never", args: ["--mode", "rpc", "--no-session"], input: "", done: () => false };
		const failed = await primeCompileCache(cli, [never], 1000);
		expect(failed).toEqual(["never"]);
		expect(warnings[0]).toContain("it did not finish within 1 s");
	});

	it("writes the cache of every run when none fails", async () => {
		const server = await startPrimeServer();
		const { cli, cache } = distCopy();
		try {
			const warn = vi.spyOn(console, "warn");
			const failed = await primeCompileCache(cli, primeRuns(server.baseUrl), 30_000);
			expect(failed).toEqual([]);
			expect(warn).not.toHaveBeenCalled();
		} finally {
			await server.close();
		}
		expect(readdirSync(cache)).toEqual([`${process.versions.v8}-${process.arch}`]);
	});
});
