import { dirname, join, resolve } from "node:path";
import { MAX_CONFIG_FILE_BYTES, readOptionalTextFileSync } from "../platform/regular-file.js";

export interface ContextFile {
	path: string;
	content: string;
}

/** Per directory, the first of these that exists is used. */
const CANDIDATES = ["AGENTS.override.md", "AGENTS.md", "CLAUDE.md"];

function firstExisting(directory: string): ContextFile | undefined {
	for (const name of CANDIDATES) {
		const path = join(directory, name);
		try {
			// Only a regular file is read: a FIFO named AGENTS.md must not hold up the process.
			const content = readOptionalTextFileSync(path, { maxBytes: MAX_CONFIG_FILE_BYTES });
			if (content === undefined) continue;
			return { path, content };
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
