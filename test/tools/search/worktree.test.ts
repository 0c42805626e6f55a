import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { textOf } from "../search-fixture.js";
import { findTool, grepTool } from "./search-calls.js";

describe("a repository whose .git is a file (worktree, submodule)", () => {
	const root = mkdtempSync(join(tmpdir(), "atomic-worktree-"));
	afterAll(() => rmSync(root, { recursive: true, force: true }));
	// The main repository's git folder holds info/exclude; the worktree's own folder points at it.
	const common = join(root, "main", ".git");
	const own = join(common, "worktrees", "feature");
	mkdirSync(join(common, "info"), { recursive: true });
	mkdirSync(own, { recursive: true });
	writeFileSync(join(common, "info", "exclude"), "excluded.txt\n");
	writeFileSync(join(own, "commondir"), "../..\n");
	const tree = join(root, "feature");
	mkdirSync(tree);
	writeFileSync(join(tree, ".git"), `gitdir: ${own}\n`);
	writeFileSync(join(tree, ".gitignore"), "ignored.txt\n");
	for (const name of ["kept.txt", "ignored.txt", "excluded.txt"]) writeFileSync(join(tree, name), "needle\n");

	it("is searched, with its .gitignore and the common folder's info/exclude applied", async () => {
		const grep = textOf(await grepTool(tree, { pattern: "needle" }));
		expect(grep).toBe("kept.txt:1: needle");
		const find = textOf(await findTool(tree, { pattern: "*.txt" }));
		expect(find).toBe("kept.txt");
	});
});
