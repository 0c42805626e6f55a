import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export interface ContextFile {
	path: string;
	content: string;
}

/** Per directory, the first of these that exists is used. */
const CANDIDATES = ["AGENTS.override.md", "AGENTS.md", "CLAUDE.md"];

function firstExisting(directory: string): ContextFile | undefined {
	for (const name of CANDIDATES) {
		const path = join(directory, name);
		if (!existsSync(path)) continue;
		try {
			return { path, content: readFileSync(path, "utf8") };
		} catch (error) {
			process.stderr.write(`Warning: cannot read ${path}: ${error instanceof Error ? error.message : String(error)}\n`);
		}
	}
	return undefined;
}

/**
 * Project instructions for the system prompt: the agent dir's file first, then one file per
 * directory from the filesystem root down to the cwd (nearest last, so it reads as most specific).
 */
export function loadContextFiles(agentDir: string, cwd: string): ContextFile[] {
	const files: ContextFile[] = [];
	const global = firstExisting(agentDir);
	if (global) files.push(global);
	const chain: string[] = [];
	for (let directory = resolve(cwd); ; directory = dirname(directory)) {
		chain.unshift(directory);
		if (dirname(directory) === directory) break;
	}
	for (const directory of chain) {
		const file = firstExisting(directory);
		if (file && !files.some((existing) => existing.path === file.path)) files.push(file);
	}
	return files;
}
