import { lstatSync, readlinkSync, realpathSync, type Stats, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { errorCode } from "../platform/errors.js";

/** Links followed before a path counts as a loop (the kernel's own limit). */
const MAX_LINKS = 40;

/**
 * Where `path` (absolute) really is: every symbolic link and `..` resolved, also for a path that
 * does not exist yet (its deepest existing folder resolved, the rest appended) and for a link
 * whose target does not exist yet (a write through it lands at the target). Throws on a loop.
 */
export function realPath(path: string, links = 0): string {
	if (links > MAX_LINKS) throw new Error(`Too many symbolic links: ${path}`);
	const absolute = resolve(path);
	try {
		return realpathSync(absolute);
	} catch (error) {
		const code = errorCode(error);
		if (code === "ELOOP") throw new Error(`Too many symbolic links: ${path}`, { cause: error });
		if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
	}
	if (lstatIfAny(absolute)?.isSymbolicLink()) {
		const target = readlinkSync(absolute);
		return realPath(isAbsolute(target) ? target : join(dirname(absolute), target), links + 1);
	}
	const parent = dirname(absolute);
	if (parent === absolute) return absolute;
	return join(realPath(parent, links), absolute.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
}

/** Whether `path` is `folder` or inside it (both absolute and resolved). */
export function isWithin(path: string, folder: string): boolean {
	if (path === folder) return true;
	const prefix = folder.endsWith(sep) ? folder : `${folder}${sep}`;
	return path.startsWith(prefix);
}

/** A path's stats (links followed), or undefined when nothing is there (also below a file). */
export function statIfAny(path: string): Stats | undefined {
	try {
		return statSync(path, { throwIfNoEntry: false });
	} catch (error) {
		const code = errorCode(error);
		if (code === "ENOTDIR" || code === "ELOOP" || code === "EACCES") return undefined;
		throw error;
	}
}

function lstatIfAny(path: string): Stats | undefined {
	try {
		return lstatSync(path, { throwIfNoEntry: false });
	} catch (error) {
		if (errorCode(error) === "ENOTDIR") return undefined;
		throw error;
	}
}
