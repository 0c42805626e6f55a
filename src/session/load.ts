import { isSessionEntry, toSessionHeader } from "./entry-parse.js";
import type { SessionIo } from "./io.js";
import {
	DEFAULT_SESSION_LIMITS,
	SessionFileTooLargeError,
	type SessionLimits,
	SessionLineTooLongError,
} from "./limits.js";
import { LineTooLongError, readLines } from "./line-reader.js";
import { isRecord } from "./message-guards.js";
import { migrateRecords } from "./migrations.js";
import type { SessionEntry, SessionHeader, WarningSink } from "./types.js";

/** The state of a file's last line, which decides the repair before the next append. */
export type TailState =
	| { kind: "clean" }
	/** The last line parsed but has no LF: write one before the next record. */
	| { kind: "torn-valid" }
	/**
	 * The last line is unusable: cut the file back to `completeEnd` before the next record, provided
	 * the file still has the size `end` it had when loaded (else another program wrote since).
	 */
	| { kind: "torn-invalid"; completeEnd: number; end: number };

export interface LoadedSessionFile {
	/** Undefined for an empty file (it gets a header on the first flush). */
	header: SessionHeader | undefined;
	entries: SessionEntry[];
	invalidLines: number;
	tail: TailState;
	/** The format version the file was written in, when older than the current one. */
	migratedFrom?: number;
}

export class NotASessionFileError extends Error {
	constructor(readonly path: string) {
		super(`Not an Atomic session file: ${path}`);
		this.name = "NotASessionFileError";
	}
}

/**
 * Loads a session file: reads it in chunks, parses each line, skips torn or invalid lines (one
 * warning per load that counts them), checks that the first usable line is a session header, and
 * migrates older formats in memory. Only a regular file is read (`NotARegularFileError` otherwise),
 * and only within `limits`: a larger file throws `SessionFileTooLargeError`, a longer line
 * `SessionLineTooLongError`, before it is held in memory.
 */
export function loadSessionFile(
	path: string,
	io: SessionIo,
	warn: WarningSink,
	limits: SessionLimits = DEFAULT_SESSION_LIMITS,
): LoadedSessionFile {
	const records: Record<string, unknown>[] = [];
	let invalidLines = 0;
	let tornRecord: Record<string, unknown> | undefined;
	const parse = (text: string): Record<string, unknown> | undefined => {
		if (text.trim() === "") return undefined;
		let value: unknown;
		try {
			value = JSON.parse(text);
		} catch {
			invalidLines++;
			return undefined;
		}
		if (isRecord(value)) return value;
		invalidLines++;
		return undefined;
	};
	const fd = io.open(path, "r");
	let read: ReturnType<typeof readLines>;
	try {
		const size = io.size(fd);
		if (size > limits.maxFileBytes) throw new SessionFileTooLargeError(path, size, limits.maxFileBytes, "open");
		const onLine = (text: string) => {
			const record = parse(text);
			if (record) records.push(record);
		};
		read = readLines(io, fd, 0, onLine, { maxLineBytes: limits.maxLineBytes, end: size });
	} catch (error) {
		if (error instanceof LineTooLongError) throw new SessionLineTooLongError(path, error.start, error.maxBytes);
		throw error;
	} finally {
		io.close(fd);
	}
	if (read.tornTail !== undefined) {
		tornRecord = parse(read.tornTail);
		if (tornRecord) records.push(tornRecord);
	}

	const [first, ...rest] = records;
	if (first === undefined) {
		if (invalidLines > 0) throw new NotASessionFileError(path);
		return { header: undefined, entries: [], invalidLines: 0, tail: tailState(read, false) };
	}
	const header = toSessionHeader(first);
	if (!header) throw new NotASessionFileError(path);
	const version = migrateRecords(header, rest);
	const entries: SessionEntry[] = [];
	let tornAccepted = tornRecord === first;
	for (const record of rest) {
		if (isSessionEntry(record)) {
			entries.push(record);
			if (record === tornRecord) tornAccepted = true;
		} else {
			invalidLines++;
		}
	}
	if (invalidLines > 0) {
		warn(`Warning: skipped ${invalidLines} invalid line${invalidLines === 1 ? "" : "s"} in ${path}`);
	}
	const loaded: LoadedSessionFile = { header, entries, invalidLines, tail: tailState(read, tornAccepted) };
	if (version !== header.version) loaded.migratedFrom = version;
	return loaded;
}

function tailState(read: ReturnType<typeof readLines>, tornAccepted: boolean): TailState {
	if (read.tornTail === undefined) return { kind: "clean" };
	return tornAccepted ? { kind: "torn-valid" } : { kind: "torn-invalid", completeEnd: read.completeEnd, end: read.end };
}
