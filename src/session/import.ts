import { statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { ensureDirectorySync } from "../platform/ensure-directory.js";
import { errorCode } from "../platform/errors.js";
import { describeFileKind } from "../platform/file-kind.js";
import { copyRegularFileSync } from "../platform/regular-file.js";
import { readSessionHeader } from "./header-reader.js";
import { DEFAULT_SESSION_LIMITS, SessionFileTooLargeError, type SessionLimits } from "./limits.js";
import { NotASessionFileError } from "./load.js";

/**
 * Checks that `source` can be imported: an existing regular file within the size limit that
 * starts with a session header. Throws `File not found: <path>`, `Cannot import <path>: it is a
 * FIFO (named pipe), not a regular file`, `SessionFileTooLargeError` or `NotASessionFileError`.
 * Nothing is opened that could block.
 */
export function checkImportable(source: string, limits: SessionLimits = DEFAULT_SESSION_LIMITS): void {
	const stats = statSync(source, { throwIfNoEntry: false });
	if (!stats) throw new Error(`File not found: ${source}`);
	if (!stats.isFile()) throw new Error(`Cannot import ${source}: it is ${describeFileKind(stats)}, not a regular file`);
	if (stats.size > limits.maxFileBytes) {
		throw new SessionFileTooLargeError(source, stats.size, limits.maxFileBytes, "open");
	}
	if (!readSessionHeader(source)) throw new NotASessionFileError(source);
}

/**
 * Copies `source` into `directory` (created when missing) under its own name, or with `-1`,
 * `-2`, ... before `.jsonl` when that name is taken; returns the copy's path (`source` itself when
 * it already is in that directory). The copy never overwrites a file.
 */
export function copyIntoSessionDir(
	source: string,
	directory: string,
	limits: SessionLimits = DEFAULT_SESSION_LIMITS,
): string {
	ensureDirectorySync(directory);
	const first = join(directory, basename(source));
	if (resolve(first) === resolve(source)) return source;
	const base = first.replace(/\.jsonl$/, "");
	for (let index = 0; ; index++) {
		const candidate = index === 0 ? first : `${base}-${index}.jsonl`;
		try {
			copyRegularFileSync(source, candidate, { maxBytes: limits.maxFileBytes });
			return candidate;
		} catch (error) {
			if (errorCode(error) !== "EEXIST") throw error;
		}
	}
}
