import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const repo = resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(join(tmpdir(), "atomic-baseline-"));
const entry = join(dir, "probe.ts");
// A function first called after compileBaselineFromNowOn is Sparkplug code at once; one called
// before stays in the interpreter. V8's natives report the tier (the probe runs with them on).
writeFileSync(
	entry,
	`import { compileBaselineFromNowOn } from ${JSON.stringify(join(repo, "src/platform/baseline-tier.ts"))};
const isBaseline = new Function("f", "return %ActiveTierIsSparkplug(f)");
function before(n: number) { return n + 1; }
before(1);
const on = compileBaselineFromNowOn();
function after(n: number) { return n + 2; }
after(1);
process.stdout.write(JSON.stringify({ on, again: compileBaselineFromNowOn(), before: isBaseline(before), after: isBaseline(after) }));
`,
);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function probe(nodeArgs: string[] = [], env: Record<string, string> = {}): unknown {
	const output = execFileSync(
		process.execPath,
		["--allow-natives-syntax", ...nodeArgs, join(repo, "scripts/run-ts.mjs"), entry],
		{ encoding: "utf8", env: { ...process.env, ATOMIC_COMPILE_CACHE: "", NODE_OPTIONS: "", ...env } },
	);
	return JSON.parse(output);
}

describe("baseline compilation from the idle preload on", () => {
	it("compiles functions first called afterwards to Sparkplug code, and only those", () => {
		expect(probe()).toEqual({ on: true, again: true, before: false, after: true });
	});

	it("stays off in a process writing the compile cache", () => {
		expect(probe([], { ATOMIC_COMPILE_CACHE: "write" })).toEqual({
			on: false,
			again: false,
			before: false,
			after: false,
		});
	});

	it("leaves V8's tiering alone when Node was given tiering options", () => {
		expect(probe(["--no-sparkplug"])).toMatchObject({ on: false, after: false });
		expect(probe([], { NODE_OPTIONS: "--jitless" })).toMatchObject({ on: false, after: false });
	});
});
