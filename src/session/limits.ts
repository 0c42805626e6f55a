import { formatBytes } from "../platform/file-kind.js";

/**
 * How much of a session file is read. Loading is synchronous and keeps every entry in memory, so
 * a file (or a line) without a bound would let a hostile or broken file take the process down;
 * appends respect the same bounds, so that Atomic never writes a file it would refuse to open.
 */
export interface SessionLimits {
	/** Largest session file opened or grown (default 512 MB). */
	maxFileBytes: number;
	/** Longest line (one entry) read or written (default 128 MB). */
	maxLineBytes: number;
}

export const DEFAULT_SESSION_LIMITS: Readonly<SessionLimits> = {
	maxFileBytes: 512 * 1024 * 1024,
	maxLineBytes: 128 * 1024 * 1024,
};

/** A session file over `maxFileBytes`, on open or when an append would take it there. */
export class SessionFileTooLargeError extends Error {
	constructor(
		readonly path: string,
		readonly size: number,
		readonly maxBytes: number,
		action: "open" | "append",
	) {
		super(
			action === "open"
				? `Session file ${path} is too large to open (${formatBytes(size)}; at most ${formatBytes(maxBytes)})`
				: `Session file ${path} would grow past ${formatBytes(maxBytes)} (the most Atomic opens); start a new session`,
		);
		this.name = "SessionFileTooLargeError";
	}
}

/** A line over `maxLineBytes`, read at byte `start` of the file or about to be written. */
export class SessionLineTooLongError extends Error {
	constructor(
		readonly path: string,
		readonly start: number | undefined,
		readonly maxBytes: number,
	) {
		super(
			start === undefined
				? `An entry for ${path} is larger than ${formatBytes(maxBytes)} (the longest line Atomic reads) and was not written`
				: `Session file ${path} has a line longer than ${formatBytes(maxBytes)} at byte ${start}`,
		);
		this.name = "SessionLineTooLongError";
	}
}
