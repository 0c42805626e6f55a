import { realpathSync, type Stats, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** Where a skill or prompt template came from: the agent dir, the project, or an explicit path. */
export type ResourceLocation = "user" | "project" | "path";

/** A path given by the user (CLI flag, settings): `~` means the home directory, relative means cwd. */
export function resolveUserPath(path: string, cwd: string): string {
	if (path === "~") return homedir();
	if (path.startsWith("~/")) return join(homedir(), path.slice(2));
	return resolve(cwd, path);
}

/** Stats through symlinks; undefined when the path does not exist or cannot be inspected. */
export function statIfExists(path: string): Stats | undefined {
	try {
		return statSync(path, { throwIfNoEntry: false });
	} catch (error) {
		// A symlink loop or a permission problem: for discovery this is the same as an absent entry.
		if (error instanceof Error && "code" in error) return undefined;
		throw error;
	}
}

/** The canonical path, used to recognise one file reached twice (symlinks, overlapping dirs). */
export function canonicalPath(path: string): string {
	try {
		return realpathSync(path);
	} catch (error) {
		if (error instanceof Error && "code" in error) return resolve(path);
		throw error;
	}
}

/** The nearest directory at or above `cwd` that contains `.git`, or undefined outside a repository. */
export function findGitRoot(cwd: string): string | undefined {
	for (let directory = resolve(cwd); ; directory = resolve(directory, "..")) {
		if (statIfExists(join(directory, ".git"))) return directory;
		if (resolve(directory, "..") === directory) return undefined;
	}
}
