import type { Stats } from "node:fs";
import { readdir, stat } from "node:fs/promises";
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

async function statOrUndefined(path: string): Promise<Stats | undefined> {
	try {
		return await stat(path);
	} catch (error) {
		if (error instanceof Error && "code" in error && (error.code === "ENOENT" || error.code === "ENOTDIR"))
			return undefined;
		throw new Error(`Cannot read ${path}`, { cause: error });
	}
}

/** `index.ts`, else `index.js`, of a directory. */
async function directoryEntry(dir: string): Promise<string | undefined> {
	for (const name of ["index.ts", "index.js"]) {
		const candidate = join(dir, name);
		if ((await statOrUndefined(candidate))?.isFile()) return candidate;
	}
	return undefined;
}

/** `*.ts`, `*.js`, `*\/index.ts`, `*\/index.js` of one directory, sorted by name; none when it is missing. */
async function extensionsIn(dir: string): Promise<string[]> {
	if (!(await statOrUndefined(dir))?.isDirectory()) return [];
	const names = (await readdir(dir)).filter((name) => !name.startsWith(".")).sort();
	const found: string[] = [];
	for (const name of names) {
		const path = join(dir, name);
		const info = await statOrUndefined(path);
		if (info?.isFile() && MODULE_FILE.test(name) && !name.endsWith(".d.ts")) found.push(path);
		else if (info?.isDirectory()) {
			const entry = await directoryEntry(path);
			if (entry) found.push(entry);
		}
	}
	return found;
}

/** Finds the extension files to load. Throws only when a directory cannot be read. */
export async function findExtensions(search: ExtensionSearch): Promise<FoundExtensions> {
	const candidates: string[] = [];
	const errors: ExtensionError[] = [];
	if (search.discover) {
		candidates.push(...(await extensionsIn(join(search.agentDir, "extensions"))));
		candidates.push(...(await extensionsIn(join(search.cwd, ".atomic", "extensions"))));
	}
	for (const given of search.paths) {
		const path = resolve(search.cwd, expandHome(given));
		const info = await statOrUndefined(path);
		const entry = info?.isDirectory() ? await directoryEntry(path) : info?.isFile() ? path : undefined;
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
