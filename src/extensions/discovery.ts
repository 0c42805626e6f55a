import { readdirSync, type Stats, statSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { expandHome } from "../llm/config-paths.js";
import { type SourceInfo, sourceInfoFor } from "../resources/source-info.js";
import type { ExtensionError } from "./host.js";

export interface ExtensionSearch {
	cwd: string;
	agentDir: string;
	/** Look in `<agentDir>/extensions/` and `<cwd>/.atomic/extensions/`. Explicit paths load either way. */
	discover: boolean;
	/** `-e/--extension` paths (files or directories with an index), relative to cwd. */
	paths: readonly string[];
}

export interface FoundExtensions {
	/** Absolute, without duplicates: discovered ones (agent dir, then project), then explicit ones. */
	paths: string[];
	/** Explicit paths that name nothing loadable (event "load"). */
	errors: ExtensionError[];
}

const MODULE_FILE = /\.(ts|js)$/;

/**
 * Discovery reads synchronously, as the discovery of skills and prompt templates does: a stat or
 * two when there are no extensions, done before the session answers its first command. (Through
 * node:fs/promises it loaded that module and started libuv's thread pool at start-up.)
 */
function statOrUndefined(path: string): Stats | undefined {
	try {
		return statSync(path);
	} catch (error) {
		if (error instanceof Error && "code" in error && (error.code === "ENOENT" || error.code === "ENOTDIR"))
			return undefined;
		throw new Error(`Cannot read ${path}`, { cause: error });
	}
}

/** `index.ts`, else `index.js`, of a directory. */
function directoryEntry(dir: string): string | undefined {
	for (const name of ["index.ts", "index.js"]) {
		const candidate = join(dir, name);
		if (statOrUndefined(candidate)?.isFile()) return candidate;
	}
	return undefined;
}

/** `*.ts`, `*.js`, `*\/index.ts`, `*\/index.js` of one directory, sorted by name; none when it is missing. */
function extensionsIn(dir: string): string[] {
	if (!statOrUndefined(dir)?.isDirectory()) return [];
	const names = readdirSync(dir)
		.filter((name) => !name.startsWith("."))
		.sort();
	const found: string[] = [];
	for (const name of names) {
		const path = join(dir, name);
		const info = statOrUndefined(path);
		if (info?.isFile() && MODULE_FILE.test(name) && !name.endsWith(".d.ts")) found.push(path);
		else if (info?.isDirectory()) {
			const entry = directoryEntry(path);
			if (entry) found.push(entry);
		}
	}
	return found;
}

/** Finds the extension files to load. Throws only when a directory cannot be read. */
export function findExtensions(search: ExtensionSearch): FoundExtensions {
	const candidates: string[] = [];
	const errors: ExtensionError[] = [];
	if (search.discover) {
		candidates.push(...extensionsIn(join(search.agentDir, "extensions")));
		candidates.push(...extensionsIn(join(search.cwd, ".atomic", "extensions")));
	}
	for (const given of search.paths) {
		const path = resolve(search.cwd, expandHome(given));
		const info = statOrUndefined(path);
		const entry = info?.isDirectory() ? directoryEntry(path) : info?.isFile() ? path : undefined;
		if (entry) candidates.push(entry);
		else {
			const reason = info?.isDirectory() ? "has no index.ts or index.js" : "does not exist";
			errors.push({ extensionPath: path, event: "load", error: `Extension path ${given} ${reason}` });
		}
	}
	return { paths: [...new Set(candidates)], errors };
}

/**
 * How an extension file was found: in the agent dir (user), the project's `.atomic/extensions`
 * (project), or given with `-e` (a temporary command-line path).
 */
export function extensionSourceInfo(path: string, search: Pick<ExtensionSearch, "cwd" | "agentDir">): SourceInfo {
	const userDir = join(search.agentDir, "extensions");
	const projectDir = join(search.cwd, ".atomic", "extensions");
	if (path.startsWith(userDir + sep)) return sourceInfoFor(path, "user", userDir);
	if (path.startsWith(projectDir + sep)) return sourceInfoFor(path, "project", projectDir);
	return sourceInfoFor(path, "path");
}
