import type { Stats } from "node:fs";
import { fsPromises } from "../platform/lazy-builtins.js";
import { MAX_FOLDER_ENTRIES } from "./search/walker.js";

/** True for errors raised by file system calls (they carry a string `code` such as "ENOENT"). */
export function isFileSystemError(error: unknown): error is NodeJS.ErrnoException {
	return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === "string";
}

/** Stats a path a tool was given; a missing one fails with "Path not found: <path>". */
export async function statToolPath(path: string): Promise<Stats> {
	try {
		return await fsPromises().stat(path);
	} catch (error) {
		if (isFileSystemError(error) && (error.code === "ENOENT" || error.code === "ENOTDIR")) {
			throw new Error(`Path not found: ${path}`, { cause: error });
		}
		throw error;
	}
}

/** A whole number from an optional model-given value, at least `minimum`. */
export function wholeNumber(value: number | undefined, fallback: number, minimum: number): number {
	if (value === undefined || !Number.isFinite(value)) return fallback;
	return Math.max(minimum, Math.floor(value));
}

/** Appends notices after a blank line as one bracketed sentence list, the classic tools' format. */
export function withNotices(text: string, notices: readonly string[]): string {
	return notices.length === 0 ? text : `${text}\n\n[${notices.join(". ")}]`;
}

/** Whole seconds of a duration in milliseconds, at least 1. */
export function seconds(milliseconds: number): number {
	return Math.max(1, Math.round(milliseconds / 1000));
}

/** The notice of a search the time limit stopped. */
export function timeLimitNotice(limitSeconds: number): string {
	return `Search stopped after ${limitSeconds} s (time limit); results are incomplete. Narrow the path or glob, or simplify the pattern`;
}

/** The notice of a search that walked only the first entries of some huge folders. */
export function foldersCutNotice(folders: readonly string[]): string {
	return `Some folders have more than ${MAX_FOLDER_ENTRIES} entries; only their first ${MAX_FOLDER_ENTRIES} were searched: ${folders.join(", ")}`;
}

/** The notice of files or folders a search could not read (they were skipped). */
export function unreadableNotice(count: number, named: readonly string[]): string {
	const more = count > named.length ? ` and ${count - named.length} more` : "";
	const what =
		count === 1
			? "One file or folder could not be read and was"
			: `${count} files or folders could not be read and were`;
	return `${what} skipped: ${named.join(", ")}${more}`;
}
