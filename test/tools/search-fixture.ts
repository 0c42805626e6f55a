import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll } from "vitest";
import type { AgentToolResult } from "../../src/agent/types.js";

/** Creates a temporary directory removed after the test file's tests. */
export function temporaryDirectory(): string {
	const directory = mkdtempSync(join(tmpdir(), "atomic-tools-"));
	afterAll(() => rmSync(directory, { recursive: true, force: true }));
	return directory;
}

/** Writes `files` (root-relative path => content) under `root`, creating parent directories. */
export function writeTree(root: string, files: Record<string, string | Buffer>): void {
	for (const [path, content] of Object.entries(files)) {
		const absolute = join(root, path);
		mkdirSync(dirname(absolute), { recursive: true });
		writeFileSync(absolute, content);
	}
}

/**
 * A small repository: a `.git` directory, root and nested `.gitignore`s (with negations), a `.ignore`,
 * hidden files, a binary file, a symlinked file and two symlinked directories that would loop.
 */
export function createSearchFixture(): string {
	const root = temporaryDirectory();
	writeTree(root, {
		".git/HEAD": "ref: refs/heads/main\n",
		".git/config": "needle git\n",
		".gitignore": "*.log\n!keep.log\nbuild/\nnode_modules/\n",
		".ignore": "ignored-by-dot-ignore.txt\n",
		".hidden.txt": "secret needle\n",
		"README.md": "# Title\nNeedle in caps\n",
		"debug.log": "needle in log\n",
		"keep.log": "needle kept\n",
		"ignored-by-dot-ignore.txt": "needle dot ignore\n",
		"image.bin": Buffer.from("needle\u0000binary\n"),
		"build/out.js": "needle build\n",
		"node_modules/pkg/index.js": "needle module\n",
		"docs/notes.txt": "notes\n",
		"docs/scratch.tmp": "needle docs scratch\n",
		"src/.gitignore": "generated/\n*.tmp\n!important.tmp\n",
		"src/app.ts":
			'import { util } from "./util";\n// line 2\nexport function main() {\n\tconst needle = util();\n\treturn needle;\n}\n',
		"src/util.ts": "export function util() {\n\treturn 1;\n}\n",
		"src/trace.log": "needle trace\n",
		"src/generated/gen.ts": "needle generated\n",
		"src/scratch.tmp": "needle scratch\n",
		"src/important.tmp": "needle important\n",
		"src/nested/deep.ts":
			"const a = 1;\nconst b = 2;\nconst needle = a + b;\nconst c = 3;\nconst d = 4;\nconst e = 5;\nconst f = 6;\nexport const needleAgain = 7;\n",
	});
	symlinkSync(join(root, "src/app.ts"), join(root, "link-to-app.ts"));
	symlinkSync(root, join(root, "loop"), "dir");
	symlinkSync("..", join(root, "src/nested/back"), "dir");
	return root;
}

/** The text of a tool result made of one text block. */
export function textOf(result: AgentToolResult): string {
	const [first] = result.content;
	if (first?.type !== "text" || result.content.length !== 1) throw new Error("expected one text block");
	return first.text;
}
