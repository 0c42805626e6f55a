import type { Stats } from "node:fs";

/** What a path is, in words for an error message ("a FIFO (named pipe)", "a directory"...). */
export function describeFileKind(stats: Stats): string {
	if (stats.isFile()) return "a regular file";
	if (stats.isDirectory()) return "a directory";
	if (stats.isFIFO()) return "a FIFO (named pipe)";
	if (stats.isSocket()) return "a socket";
	if (stats.isCharacterDevice()) return "a character device";
	if (stats.isBlockDevice()) return "a block device";
	return "a special file";
}

/**
 * Refused because it is not a regular file: opening a FIFO blocks until a writer appears, a
 * device such as /dev/zero never ends, a socket cannot be opened at all.
 */
export class NotARegularFileError extends Error {
	readonly code = "ENOTREGULAR";
	constructor(
		readonly path: string,
		readonly kind: string,
	) {
		super(`${path} is ${kind}, not a regular file`);
		this.name = "NotARegularFileError";
	}
}

/** A file refused because it is larger than the reader accepts. */
export class FileTooLargeError extends Error {
	readonly code = "EFBIG";
	constructor(
		readonly path: string,
		readonly size: number,
		readonly maxBytes: number,
	) {
		super(`${path} is too large (${formatBytes(size)}; at most ${formatBytes(maxBytes)} is read)`);
		this.name = "FileTooLargeError";
	}
}

export function formatBytes(bytes: number): string {
	if (bytes < 1024) return `${bytes} B`;
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
	if (bytes < 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
	return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GB`;
}
