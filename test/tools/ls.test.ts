import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLsTool, type LsToolInput } from "../../src/tools/ls.js";
import { createSearchFixture, temporaryDirectory, textOf, writeTree } from "./search-fixture.js";

function lsIn(cwd: string) {
	const tool = createLsTool({ cwd });
	return (args: LsToolInput) => tool.execute("call-1", args, new AbortController().signal, () => undefined);
}

describe("ls", () => {
	const root = createSearchFixture();
	const ls = lsIn(root);

	it("lists every entry case-insensitively sorted, directories (and links to them) with '/'", async () => {
		const result = await ls({});
		expect(textOf(result)).toBe(
			[
				".git/",
				".gitignore",
				".hidden.txt",
				".ignore",
				"build/",
				"debug.log",
				"docs/",
				"ignored-by-dot-ignore.txt",
				"image.bin",
				"keep.log",
				"link-to-app.ts",
				"loop/",
				"node_modules/",
				"README.md",
				"src/",
			].join("\n"),
		);
		expect(result.details).toEqual({});
	});

	it("lists a relative path", async () => {
		expect(textOf(await ls({ path: "src/nested" }))).toBe(["back/", "deep.ts"].join("\n"));
	});

	it("orders mixed case names alphabetically", async () => {
		const directory = temporaryDirectory();
		writeTree(directory, { "b.txt": "", "A.txt": "", "C/x": "", "a-b.txt": "" });
		expect(textOf(await lsIn(directory)({}))).toBe(["a-b.txt", "A.txt", "b.txt", "C/"].join("\n"));
	});

	it("reports the entry limit", async () => {
		const result = await ls({ limit: 2 });
		expect(textOf(result)).toBe(
			[".git/", ".gitignore", "", "[2 entries limit reached. Use limit=4 for more]"].join("\n"),
		);
		expect(result.details).toEqual({ entryLimitReached: 2 });
	});

	it("says when a directory is empty", async () => {
		expect(textOf(await lsIn(temporaryDirectory())({}))).toBe("(empty directory)");
	});

	it("fails for a missing path and for a file", async () => {
		await expect(ls({ path: "missing" })).rejects.toThrow(`Path not found: ${join(root, "missing")}`);
		await expect(ls({ path: "keep.log" })).rejects.toThrow(`Not a directory: ${join(root, "keep.log")}`);
	});
});
