import { isSessionEntry, toSessionHeader } from "./entry-parse.js";
import type { SessionIo } from "./io.js";
import { readLines } from "./line-reader.js";
import { isRecord } from "./message-guards.js";
import { migrateRecords } from "./migrations.js";
import type { SessionEntry, SessionHeader, WarningSink } from "./types.js";

/** The state of a file's last line, which decides the repair before the next append. */
export type TailState =
	| { kind: "clean" }
	/** The last line parsed but has no LF: write one before the next record. */
	| { kind: "torn-valid" }
	/** The last line is unusable: cut the file back to `completeEnd` before the next record. */
	| { kind: "torn-invalid"; completeEnd: number };

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
 * migrates older formats in memory.
 */
export function loadSessionFile(path: string, io: SessionIo, warn: WarningSink): LoadedSessionFile {
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
		read = readLines(io, fd, 0, (text) => {
			const record = parse(text);
			if (record) records.push(record);
		});
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
	return tornAccepted ? { kind: "torn-valid" } : { kind: "torn-invalid", completeEnd: read.completeEnd };
}
