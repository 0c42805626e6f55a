import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** A fresh temporary directory; call `remove` in afterEach. */
export function makeTempRoot(): { root: string; remove: () => void } {
	const root = mkdtempSync(join(tmpdir(), "atomic-resources-"));
	return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** Writes files (relative path → content) below `root`, creating directories as needed. */
export function writeTree(root: string, files: Record<string, string>): void {
	for (const [relativePath, content] of Object.entries(files)) {
		const path = join(root, relativePath);
		mkdirSync(dirname(path), { recursive: true });
		writeFileSync(path, content);
	}
}

/** A SKILL.md text with the given frontmatter lines and body. */
export function skillText(frontmatter: string[], body = "Do the thing."): string {
	return `---\n${frontmatter.join("\n")}\n---\n${body}\n`;
}
