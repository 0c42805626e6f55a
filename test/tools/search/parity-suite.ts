import { beforeAll, expect, it } from "vitest";
import type { FindToolInput } from "../../../src/tools/find.js";
import type { GrepToolInput } from "../../../src/tools/grep.js";
import { temporaryDirectory } from "../search-fixture.js";
import { describeWithTools, entriesOf, fdPath, runTool } from "./external-tools.js";
import { generateTree } from "./generated-tree.js";
import { atomicHits, findTool, grepTool, hitKeys, rgHits, splitResult } from "./search-calls.js";

/** rg as the tool's reference: line numbers, hidden files, one line per hit, `.git` left out. */
const RG_BASE = ["--null", "--line-number", "--no-heading", "--color", "never", "--hidden", "--glob", "!.git"];
/** fd as find's reference: hidden files, globs, `.git` left out. */
const FD_BASE = ["--hidden", "--glob", "--exclude", ".git", "--color", "never", "-0"];

/** A limit no query reaches, so that every match is returned. */
const ALL = 100_000;

interface GrepCase {
	name: string;
	args: GrepToolInput;
	rg: string[];
}

const GREP_CASES: GrepCase[] = [
	{ name: "a literal", args: { pattern: "needle", literal: true }, rg: ["-F", "needle"] },
	{
		name: "a literal holding regex characters",
		args: { pattern: "a.b(c)", literal: true },
		rg: ["-F", "a.b(c)"],
	},
	{
		name: "a regex",
		args: { pattern: "interface\\s+\\w+Options" },
		rg: ["interface\\s+\\w+Options"],
	},
	{
		name: "a literal in files of a base-name glob",
		args: { pattern: "needle", literal: true, glob: "*.ts" },
		rg: ["-F", "needle", "--glob", "*.ts"],
	},
	{
		name: "a regex in files of a path glob",
		args: { pattern: "interface\\s+\\w+Options", glob: "src/**/*.ts" },
		rg: ["interface\\s+\\w+Options", "--glob", "src/**/*.ts"],
	},
	{
		name: "a case-insensitive literal",
		args: { pattern: "NEEDLE", literal: true, ignoreCase: true },
		rg: ["-F", "-i", "NEEDLE"],
	},
	{
		name: "a regex with two context lines",
		args: { pattern: "interface\\s+Render\\w*", context: 2 },
		rg: ["interface\\s+Render\\w*", "--context", "2"],
	},
	{
		name: "a literal in one sub-folder",
		args: { pattern: "structuredPatch", literal: true, path: "node_modules" },
		rg: ["-F", "structuredPatch", "node_modules"],
	},
	{
		name: "a literal on minified lines (cut at the line limit)",
		args: { pattern: "tokenizer", literal: true, glob: "node_modules/marked/**" },
		rg: ["-F", "tokenizer", "--glob", "node_modules/marked/**"],
	},
];

interface FindCase {
	name: string;
	args: FindToolInput;
	fd: string[];
}

const FIND_CASES: FindCase[] = [
	{ name: "`**/*.d.ts`", args: { pattern: "**/*.d.ts" }, fd: ["*.d.ts"] },
	{ name: "one file name", args: { pattern: "package.json" }, fd: ["package.json"] },
	{ name: "a base-name glob", args: { pattern: "*.md" }, fd: ["*.md"] },
];

/**
 * grep's and find's results against rg's and fd's on a generated tree (with copies of real
 * packages), as sets of (file, line number, line text) and of paths. `engine` names the run in the
 * suite's title (the default engine, or the one an environment variable forces).
 */
export function describeParity(engine: string): void {
	describeWithTools(`grep and find give rg's and fd's results (${engine})`, ["git", "rg", "fdfind"], () => {
		const root = temporaryDirectory();

		beforeAll(() => {
			runTool("git", ["init", "-q"], root);
			generateTree(root);
		});

		for (const { name, args, rg } of GREP_CASES) {
			it(`grep: ${name}`, async () => {
				const result = splitResult(await grepTool(root, { ...args, limit: ALL }));
				const reference = rgHits(runTool("rg", [...RG_BASE, ...rg], root));
				// Paths are relative to the searched folder in Atomic, to the working directory in rg.
				const prefix = args.path ? `${args.path}/` : "";
				const ours = atomicHits(result.lines).map((hit) => ({ ...hit, path: prefix + hit.path }));
				expect(reference.length).toBeGreaterThan(0);
				// Only a cut line may add a notice; no limit of count or size was reached.
				expect(result.notice).not.toMatch(/limit reached/);
				expect(hitKeys(ours)).toEqual(hitKeys(reference));
			});
		}

		it("grep: a literal found many times, with a limit, gives that many of rg's lines and says there are more", async () => {
			const result = splitResult(await grepTool(root, { pattern: "needle", literal: true, limit: 25 }));
			const reference = new Set(hitKeys(rgHits(runTool("rg", [...RG_BASE, "-F", "needle"], root))));
			const ours = hitKeys(atomicHits(result.lines));
			expect(reference.size).toBeGreaterThan(25);
			expect(ours).toHaveLength(25);
			expect(ours.filter((key) => !reference.has(key))).toEqual([]);
			expect(result.notice).toContain("25 matches limit reached");
		});

		for (const { name, args, fd } of FIND_CASES) {
			it(`find: ${name}`, async () => {
				const result = splitResult(await findTool(root, { ...args, limit: ALL }));
				const reference = entriesOf(runTool("fdfind", [...FD_BASE, ...fd], root), "\0").map(fdPath);
				expect(reference.length).toBeGreaterThan(0);
				expect(result.lines.map(fdPath).sort()).toEqual(reference.sort());
				expect(result.notice).toBe("");
			});
		}

		it("find: a limit gives that many of fd's paths and says there are more", async () => {
			const result = splitResult(await findTool(root, { pattern: "*.ts", limit: 10 }));
			const reference = new Set(entriesOf(runTool("fdfind", [...FD_BASE, "*.ts"], root), "\0").map(fdPath));
			expect(reference.size).toBeGreaterThan(10);
			expect(result.lines).toHaveLength(10);
			expect(result.lines.filter((path) => !reference.has(path))).toEqual([]);
			expect(result.notice).toContain("10 results limit reached");
		});
	});
}
