import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createGrepTool, type GrepToolInput } from "../../src/tools/grep.js";
import { createSearchFixture, temporaryDirectory, textOf, writeTree } from "./search-fixture.js";

function grepIn(cwd: string) {
	const tool = createGrepTool({ cwd });
	return (args: GrepToolInput, signal = new AbortController().signal) =>
		tool.execute("call-1", args, signal, () => undefined);
}

const BINARY_NOTICE =
	"The binary file image.bin matches; binary files (with a NUL byte) are not shown. Use bash (e.g. grep -a) to see inside one";

describe("grep", () => {
	const root = createSearchFixture();
	const grep = grepIn(root);

	it("finds matches in files that ignore rules keep, skipping .git, binary files and ignored paths", async () => {
		const result = await grep({ pattern: "needle" });
		expect(textOf(result)).toBe(
			[
				".hidden.txt:1: secret needle",
				"docs/scratch.tmp:1: needle docs scratch",
				"keep.log:1: needle kept",
				"link-to-app.ts:4: \tconst needle = util();",
				"link-to-app.ts:5: \treturn needle;",
				"src/app.ts:4: \tconst needle = util();",
				"src/app.ts:5: \treturn needle;",
				"src/important.tmp:1: needle important",
				"src/nested/deep.ts:3: const needle = a + b;",
				"src/nested/deep.ts:8: export const needleAgain = 7;",
				"",
				`[${BINARY_NOTICE}]`,
			].join("\n"),
		);
		expect(result.details).toEqual({ binaryMatches: { count: 1, files: ["image.bin"] } });
	});

	it("matches case-insensitively with ignoreCase", async () => {
		const result = await grep({ pattern: "NEEDLE IN", ignoreCase: true });
		expect(textOf(result)).toBe("README.md:2: Needle in caps");
	});

	it("treats a leading (?i) as the ignore-case flag", async () => {
		expect(textOf(await grep({ pattern: "(?i)needle in" }))).toBe("README.md:2: Needle in caps");
	});

	it("filters files by a base-name glob and by a path glob", async () => {
		expect(textOf(await grep({ pattern: "needle", glob: "*.tmp" }))).toBe(
			["docs/scratch.tmp:1: needle docs scratch", "src/important.tmp:1: needle important"].join("\n"),
		);
		expect(textOf(await grep({ pattern: "const needle =", glob: "src/**/*.ts" }))).toBe(
			["src/app.ts:4: \tconst needle = util();", "src/nested/deep.ts:3: const needle = a + b;"].join("\n"),
		);
	});

	it("shows context lines, merging adjacent groups and separating the others with --", async () => {
		expect(textOf(await grep({ pattern: "needle", path: "src/nested", context: 1 }))).toBe(
			[
				"deep.ts-2- const b = 2;",
				"deep.ts:3: const needle = a + b;",
				"deep.ts-4- const c = 3;",
				"--",
				"deep.ts-7- const f = 6;",
				"deep.ts:8: export const needleAgain = 7;",
			].join("\n"),
		);
		expect(textOf(await grep({ pattern: "needle", path: "src/nested", context: 2 }))).toBe(
			[
				"deep.ts-1- const a = 1;",
				"deep.ts-2- const b = 2;",
				"deep.ts:3: const needle = a + b;",
				"deep.ts-4- const c = 3;",
				"deep.ts-5- const d = 4;",
				"deep.ts-6- const e = 5;",
				"deep.ts-7- const f = 6;",
				"deep.ts:8: export const needleAgain = 7;",
			].join("\n"),
		);
	});

	it("separates context groups of different files with --", async () => {
		expect(textOf(await grep({ pattern: "kept|secret", context: 1 }))).toBe(
			[".hidden.txt:1: secret needle", "--", "keep.log:1: needle kept"].join("\n"),
		);
	});

	it("searches a single file given as path, showing its base name", async () => {
		expect(textOf(await grep({ pattern: "needle", path: join(root, "src/app.ts") }))).toBe(
			["app.ts:4: \tconst needle = util();", "app.ts:5: \treturn needle;"].join("\n"),
		);
	});

	it("says so when nothing matches, and when a single file is binary", async () => {
		expect(textOf(await grep({ pattern: "no-such-text" }))).toBe("No matches found");
		// A binary file's lines are not shown, but that it matches is said.
		expect(textOf(await grep({ pattern: "needle", path: "image.bin" }))).toBe(`No matches found\n\n[${BINARY_NOTICE}]`);
		expect(textOf(await grep({ pattern: "no-such-text", path: "image.bin" }))).toBe("No matches found");
	});

	it("fails for a missing path and for an invalid regex, naming them", async () => {
		await expect(grep({ pattern: "x", path: "missing" })).rejects.toThrow(`Path not found: ${join(root, "missing")}`);
		await expect(grep({ pattern: "foo(" })).rejects.toThrow(
			'Invalid regex pattern "foo(": Unterminated group. Use literal=true to search for the text as is',
		);
	});

	it("stops when the signal is aborted", async () => {
		const controller = new AbortController();
		controller.abort();
		await expect(grep({ pattern: "needle" }, controller.signal)).rejects.toThrow("This operation was aborted");
	});
});

describe("grep on generated files", () => {
	const root = temporaryDirectory();
	writeTree(root, {
		"literal.txt": "call a.b(c) here\ncall axb(c) there\ncall a.bc there\n",
		"five.txt": "hit 1\nhit 2\nhit 3\nhit 4\nhit 5\n",
		"three.txt": "three 1\nthree 2\nthree 3\n",
		"long.txt": `${"x".repeat(600)} long-needle\nshort long-needle\n`,
		"crlf.txt": "first\r\nsecond crlf\r\n",
		"big.txt": Array.from({ length: 2000 }, (_, index) => `big ${String(index).padStart(4, "0")} ${"y".repeat(90)}`)
			.join("\n")
			.concat("\n"),
	});
	const grep = grepIn(root);

	it("escapes regex metacharacters with literal=true", async () => {
		expect(textOf(await grep({ pattern: "a.b(c)", literal: true }))).toBe("literal.txt:1: call a.b(c) here");
		expect(textOf(await grep({ pattern: "a.b(c)" }))).toBe("literal.txt:3: call a.bc there");
	});

	it("reports the match limit only when more matches exist", async () => {
		const limited = await grep({ pattern: "^hit", limit: 3 });
		expect(textOf(limited)).toBe(
			[
				"five.txt:1: hit 1",
				"five.txt:2: hit 2",
				"five.txt:3: hit 3",
				"",
				"[3 matches limit reached. Use limit=6 for more, or refine pattern]",
			].join("\n"),
		);
		expect(limited.details).toEqual({ matchLimitReached: 3 });
		const exact = await grep({ pattern: "^three", limit: 3 });
		expect(textOf(exact)).toBe(["three.txt:1: three 1", "three.txt:2: three 2", "three.txt:3: three 3"].join("\n"));
		expect(exact.details).toEqual({});
	});

	it("cuts long lines at 500 characters and says so once", async () => {
		const result = await grep({ pattern: "long-needle" });
		expect(textOf(result)).toBe(
			[
				`long.txt:1: ${"x".repeat(500)}... [truncated]`,
				"long.txt:2: short long-needle",
				"",
				"[Some lines truncated to 500 chars. Use the read tool to see full lines]",
			].join("\n"),
		);
		expect(result.details).toEqual({ linesTruncated: true });
	});

	it("strips carriage returns of CRLF lines", async () => {
		expect(textOf(await grep({ pattern: "crlf$" }))).toBe("crlf.txt:2: second crlf");
	});

	it("cuts the output at 50 KB with a notice", async () => {
		const result = await grep({ pattern: "^big", limit: 5000 });
		const text = textOf(result);
		expect(text.endsWith("\n\n[50.0KB limit reached]")).toBe(true);
		const lines = text.split("\n\n[")[0]?.split("\n") ?? [];
		expect(lines[0]).toBe(`big.txt:1: big 0000 ${"y".repeat(90)}`);
		// The whole lines that fit in 51,200 bytes (lines 1-454, newlines included).
		expect(lines.length).toBe(454);
		expect(lines[453]).toBe(`big.txt:454: big 0453 ${"y".repeat(90)}`);
		expect(result.details?.truncation?.truncated).toBe(true);
		expect(result.details?.truncation?.truncatedBy).toBe("bytes");
	});
});

describe("grep over a larger tree", () => {
	const root = temporaryDirectory();
	const files: Record<string, string> = {};
	for (let directory = 0; directory < 50; directory++) {
		for (let file = 0; file < 100; file++) {
			files[`dir-${directory}/file-${file}.txt`] = `line one ${directory}/${file}\nline two\n`;
		}
	}
	files["dir-42/file-7.txt"] = "line one\nunique-marker here\n";
	writeTree(root, files);

	it("searches 5,000 files", async () => {
		expect(textOf(await grepIn(root)({ pattern: "unique-marker" }))).toBe("dir-42/file-7.txt:2: unique-marker here");
		const lines = textOf(await grepIn(root)({ pattern: "^line two", glob: "dir-42/*" })).split("\n");
		expect(lines.length).toBe(99);
		expect(lines[0]).toBe("dir-42/file-0.txt:2: line two");
	});
});
