import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createFindTool, type FindToolInput } from "../../src/tools/find.js";
import { createSearchFixture, temporaryDirectory, textOf, writeTree } from "./search-fixture.js";

function findIn(cwd: string) {
	const tool = createFindTool({ cwd });
	return (args: FindToolInput, signal = new AbortController().signal) =>
		tool.execute("call-1", args, signal, () => undefined);
}

describe("find", () => {
	const root = createSearchFixture();
	const find = findIn(root);

	it("matches a pattern without '/' against base names at any depth, honouring ignore files", async () => {
		const result = await find({ pattern: "*.ts" });
		expect(textOf(result)).toBe(["link-to-app.ts", "src/app.ts", "src/nested/deep.ts", "src/util.ts"].join("\n"));
		expect(result.details).toEqual({});
	});

	it("lists files and directories, sorted, directories with a trailing '/', hidden files included", async () => {
		expect(textOf(await find({ pattern: "*" }))).toBe(
			[
				".gitignore",
				".hidden.txt",
				".ignore",
				"docs/",
				"docs/notes.txt",
				"docs/scratch.tmp",
				"image.bin",
				"keep.log",
				"link-to-app.ts",
				"README.md",
				"src/",
				"src/.gitignore",
				"src/app.ts",
				"src/important.tmp",
				"src/nested/",
				"src/nested/deep.ts",
				"src/util.ts",
			].join("\n"),
		);
	});

	it("matches a pattern with '/' against the whole relative path", async () => {
		expect(textOf(await find({ pattern: "src/**/*.ts" }))).toBe(
			["src/app.ts", "src/nested/deep.ts", "src/util.ts"].join("\n"),
		);
		expect(textOf(await find({ pattern: "**/*.tmp" }))).toBe(["docs/scratch.tmp", "src/important.tmp"].join("\n"));
	});

	it("finds directories by name, and only directories for a pattern ending in '/'", async () => {
		expect(textOf(await find({ pattern: "nested" }))).toBe("src/nested/");
		expect(textOf(await find({ pattern: "*s/" }))).toBe("docs/");
	});

	it("searches under path, with paths relative to it", async () => {
		expect(textOf(await find({ pattern: "*", path: "src" }))).toBe(
			[".gitignore", "app.ts", "important.tmp", "nested/", "nested/deep.ts", "util.ts"].join("\n"),
		);
	});

	it("never lists .git contents or ignored paths", async () => {
		expect(textOf(await find({ pattern: "HEAD" }))).toBe("No files found matching pattern");
		expect(textOf(await find({ pattern: "*.log" }))).toBe("keep.log");
		expect(textOf(await find({ pattern: "gen*" }))).toBe("No files found matching pattern");
	});

	it("reports the result limit only when more results exist", async () => {
		const limited = await find({ pattern: "*.ts", limit: 2 });
		expect(textOf(limited)).toBe(
			["link-to-app.ts", "src/app.ts", "", "[2 results limit reached. Use limit=4 for more, or refine pattern]"].join(
				"\n",
			),
		);
		expect(limited.details).toEqual({ resultLimitReached: 2 });
		const exact = await find({ pattern: "*.ts", limit: 4 });
		expect(exact.details).toEqual({});
	});

	it("fails for a missing path and for a file path", async () => {
		await expect(find({ pattern: "*", path: "missing" })).rejects.toThrow(`Path not found: ${join(root, "missing")}`);
		await expect(find({ pattern: "*", path: "keep.log" })).rejects.toThrow(
			`Not a directory: ${join(root, "keep.log")}`,
		);
	});

	it("stops when the signal is aborted", async () => {
		const controller = new AbortController();
		controller.abort();
		await expect(find({ pattern: "*" }, controller.signal)).rejects.toThrow("This operation was aborted");
	});
});

describe("find over a larger tree", () => {
	const root = temporaryDirectory();
	const files: Record<string, string> = {};
	for (let directory = 0; directory < 50; directory++) {
		for (let file = 0; file < 100; file++) files[`dir-${directory}/file-${file}.txt`] = "";
	}
	writeTree(root, files);
	const find = findIn(root);

	it("walks 5,000 files", async () => {
		const lines = textOf(await find({ pattern: "file-42.txt" })).split("\n");
		expect(lines.length).toBe(50);
		expect(lines.slice(0, 3)).toEqual(["dir-0/file-42.txt", "dir-1/file-42.txt", "dir-10/file-42.txt"]);
	});

	it("cuts the output at 50 KB with a notice", async () => {
		const result = await find({ pattern: "*.txt", limit: 10_000 });
		expect(textOf(result).endsWith("\n\n[50.0KB limit reached]")).toBe(true);
		expect(result.details?.truncation?.truncatedBy).toBe("bytes");
		expect(result.details?.resultLimitReached).toBeUndefined();
	});
});
