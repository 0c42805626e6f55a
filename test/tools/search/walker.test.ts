import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareNames, type WalkEntry, walkTree } from "../../../src/tools/search/walker.js";
import { createSearchFixture, temporaryDirectory, writeTree } from "../search-fixture.js";

function collect(root: string, includeDirectories = false): string[] {
	const paths: string[] = [];
	walkTree(root, { includeDirectories }, (entry) => {
		paths.push(entry.isDirectory ? `${entry.path}/` : entry.path);
		return true;
	});
	return paths;
}

describe("walkTree", () => {
	const root = createSearchFixture();

	it("yields files in sorted order, honouring root and nested ignore files, skipping .git and symlinked directories", () => {
		expect(collect(root)).toEqual([
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

	it("yields directories before their contents when asked", () => {
		expect(collect(join(root, "src"), true)).toEqual([
			".gitignore",
			"app.ts",
			"important.tmp",
			"nested/",
			"nested/deep.ts",
			"util.ts",
		]);
	});

	it("applies ignore files above the root up to the repository top", () => {
		// src/trace.log is ignored by the root's `*.log` even when the walk starts in src/.
		expect(collect(join(root, "src"))).not.toContain("trace.log");
	});

	it("searches an explicitly given root that an ignore file above it excludes", () => {
		expect(collect(join(root, "build"))).toEqual(["out.js"]);
	});

	it("reports absolute paths alongside relative ones", () => {
		const entries: WalkEntry[] = [];
		walkTree(join(root, "src/nested"), {}, (entry) => entries.push(entry) > 0);
		expect(entries).toEqual([{ path: "deep.ts", absolutePath: join(root, "src/nested/deep.ts"), isDirectory: false }]);
	});

	it("lets a nested directory's rules override the root's, and only below that directory", () => {
		const tree = temporaryDirectory();
		writeTree(tree, {
			".git/HEAD": "ref: refs/heads/main\n",
			".gitignore": "*.txt\n",
			"a/.gitignore": "!wanted.txt\n",
			"a/wanted.txt": "",
			"a/other.txt": "",
			"b/wanted.txt": "",
			"b/kept.md": "",
		});
		expect(collect(tree)).toEqual([".gitignore", "a/.gitignore", "a/wanted.txt", "b/kept.md"]);
	});

	it("stops when the visitor says so", () => {
		const seen: string[] = [];
		walkTree(root, {}, (entry) => {
			seen.push(entry.path);
			return seen.length < 2;
		});
		expect(seen).toEqual([".gitignore", ".hidden.txt"]);
	});

	it("honours .gitignore files only inside a git repository, .ignore files everywhere (as ripgrep)", () => {
		const tree = temporaryDirectory();
		writeTree(tree, { ".gitignore": "*.log\n", ".ignore": "*.tmp\n", "a.log": "", "b.tmp": "", "c.txt": "" });
		expect(collect(tree)).toEqual([".gitignore", ".ignore", "a.log", "c.txt"]);
	});

	it("skips special files, also an ignore file above the root that is a FIFO, without blocking", () => {
		const repository = temporaryDirectory();
		writeTree(repository, { ".git/HEAD": "ref: refs/heads/main\n", "sub/a.txt": "a", "sub/.ignore": "b.txt\n" });
		writeTree(repository, { "sub/b.txt": "b" });
		execFileSync("mkfifo", [join(repository, ".gitignore")]);
		execFileSync("mkfifo", [join(repository, "sub", "pipe")]);
		expect(collect(join(repository, "sub"))).toEqual([".ignore", "a.txt"]);
	});

	it("reads at most maxFolderEntries entries of a folder, and says which folder it cut", () => {
		const tree = temporaryDirectory();
		writeTree(tree, { "big/a": "", "big/b": "", "big/c": "", "big/d": "", "small/x": "" });
		const cut: string[] = [];
		const paths: string[] = [];
		walkTree(
			tree,
			{ maxFolderEntries: 3, onFolderCut: (path) => cut.push(path) },
			(entry) => paths.push(entry.path) > 0,
		);
		expect(cut).toEqual(["big"]);
		expect(paths.filter((path) => path.startsWith("big/"))).toHaveLength(3);
		expect(paths).toContain("small/x");
	});

	it("throws for a root that does not exist", () => {
		expect(() => collect(join(root, "missing"))).toThrow("ENOENT");
	});

	it("orders names case-insensitively with a total tie-break", () => {
		expect(["b", "B", "a", "C", "_x"].sort(compareNames)).toEqual(["_x", "a", "B", "b", "C"]);
	});
});
