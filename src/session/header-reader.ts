import { closeSync, readSync } from "node:fs";
import { openRegularFileSync } from "../platform/regular-file.js";
import { toSessionHeader } from "./entry-parse.js";
import type { SessionHeader } from "./types.js";

/** Header lines are small; only this much of a file is read to find one. */
const HEADER_WINDOW_BYTES = 64 * 1024;

/**
 * The header of a session file, from its first non-blank line; undefined when the file is gone
 * or does not start with a session header (discovery skips such files).
 */
export function readSessionHeader(path: string): SessionHeader | undefined {
	let fd: number;
	try {
		fd = openRegularFileSync(path, "read");
	} catch (error) {
		// Removed, made unreadable or not a regular file (a FIFO is never opened for real).
		if (error instanceof Error && "code" in error) return undefined;
		throw error;
	}
	const buffer = Buffer.alloc(HEADER_WINDOW_BYTES);
	let length = 0;
	try {
		// Small steps: a header line is usually a few hundred bytes, and discovery reads many files.
		for (;;) {
			const bytesRead = readSync(fd, buffer, length, Math.min(4096, HEADER_WINDOW_BYTES - length), length);
			const searchFrom = length;
			length += bytesRead;
			if (bytesRead === 0 || length === HEADER_WINDOW_BYTES) break;
			if (buffer.subarray(searchFrom, length).includes(10)) break;
		}
	} finally {
		closeSync(fd);
	}
	const line = buffer
		.toString("utf8", 0, length)
		.split("\n")
		.find((text) => text.trim() !== "");
	if (line === undefined) return undefined;
	try {
		return toSessionHeader(JSON.parse(line));
	} catch (error) {
		if (error instanceof SyntaxError) return undefined;
		throw error;
	}
}
