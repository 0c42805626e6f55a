import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareNames, walk } from "../../src/tools/walk.js";
import { createSearchFixture, temporaryDirectory, writeTree } from "./search-fixture.js";

async function collect(root: string, includeDirectories = false): Promise<string[]> {
	const paths: string[] = [];
	for await (const entry of walk(root, { includeDirectories })) {
		paths.push(entry.isDirectory ? `${entry.path}/` : entry.path);
	}
	return paths;
}

describe("walk", () => {
	const root = createSearchFixture();

	it("yields files in sorted order, honouring root and nested ignore files, skipping .git and symlinked directories", async () => {
		expect(await collect(root)).toEqual([
			".gitignore",
			".hidden.txt",
			".ignore",
			"docs/notes.txt",
			"docs/scratch.tmp",
			"image.bin",
			"keep.log",
			"link-to-app.ts",
			"README.md",
			"src/.gitignore",
			"src/app.ts",
			"src/important.tmp",
			"src/nested/deep.ts",
			"src/util.ts",
		]);
	});

	it("yields directories before their contents when asked", async () => {
		expect(await collect(join(root, "src"), true)).toEqual([
			".gitignore",
			"app.ts",
			"important.tmp",
			"nested/",
			"nested/deep.ts",
			"util.ts",
		]);
	});

	it("applies ignore files above the root up to the repository top", async () => {
		// src/trace.log is ignored by the root's `*.log` even when the walk starts in src/.
		expect(await collect(join(root, "src"))).not.toContain("trace.log");
	});

	it("searches an explicitly given root that an ignore file above it excludes", async () => {
		expect(await collect(join(root, "build"))).toEqual(["out.js"]);
	});

	it("reports absolute paths alongside relative ones", async () => {
		const entries = [];
		for await (const entry of walk(join(root, "src/nested"))) entries.push(entry);
		expect(entries).toEqual([{ path: "deep.ts", absolutePath: join(root, "src/nested/deep.ts"), isDirectory: false }]);
	});

	it("lets a nested directory's rules override the root's, and only below that directory", async () => {
		const tree = temporaryDirectory();
		writeTree(tree, {
			".gitignore": "*.txt\n",
			"a/.gitignore": "!wanted.txt\n",
			"a/wanted.txt": "",
			"a/other.txt": "",
			"b/wanted.txt": "",
			"b/kept.md": "",
		});
		expect(await collect(tree)).toEqual([".gitignore", "a/.gitignore", "a/wanted.txt", "b/kept.md"]);
	});

	it("stops with the signal's reason when aborted mid-walk", async () => {
		const controller = new AbortController();
		const seen: string[] = [];
		const run = async () => {
			for await (const entry of walk(root, { signal: controller.signal })) {
				seen.push(entry.path);
				controller.abort();
			}
		};
		await expect(run()).rejects.toThrow("This operation was aborted");
		expect(seen).toEqual([".gitignore"]);
	});

	it("skips special files, also an ignore file above the root that is a FIFO, without blocking", async () => {
		const repository = temporaryDirectory();
		writeTree(repository, { ".git/HEAD": "ref: refs/heads/main\n", "sub/a.txt": "a", "sub/.ignore": "b.txt\n" });
		writeTree(repository, { "sub/b.txt": "b" });
		execFileSync("mkfifo", [join(repository, ".gitignore")]);
		execFileSync("mkfifo", [join(repository, "sub", "pipe")]);
		expect(await collect(join(repository, "sub"))).toEqual([".ignore", "a.txt"]);
	});

	it("throws for a root that does not exist", async () => {
		await expect(collect(join(root, "missing"))).rejects.toThrow("ENOENT");
	});

	it("orders names case-insensitively with a total tie-break", () => {
		expect(["b", "B", "a", "C", "_x"].sort(compareNames)).toEqual(["_x", "a", "B", "b", "C"]);
	});
});
