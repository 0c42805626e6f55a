import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readOptionalTextFileSync } from "../platform/regular-file.js";
import { isRecord } from "./message-guards.js";
import type { SessionScanState } from "./session-scan.js";

/** The listing cache kept in each session directory. */
export const SESSION_INDEX_FILE = ".atomic-session-index.json";
const INDEX_VERSION = 1;
/** A larger index is not read (it is rebuilt from the files). */
const MAX_INDEX_BYTES = 64 * 1024 * 1024;

/** What listing knew about one file, and the file's size, mtime and inode when it knew it. */
export interface IndexRecord {
	size: number;
	mtimeMs: number;
	ino: number;
	/** Bytes folded into `state` (always the end of a complete line). */
	scannedBytes: number;
	state: SessionScanState;
}

/** The cached records by file name; empty when there is no usable index. */
export function readSessionIndex(dir: string): Map<string, IndexRecord> {
	const records = new Map<string, IndexRecord>();
	let value: unknown;
	try {
		const text = readOptionalTextFileSync(join(dir, SESSION_INDEX_FILE), { maxBytes: MAX_INDEX_BYTES });
		if (text === undefined) return records;
		value = JSON.parse(text);
	} catch (error) {
		// No index yet, or one left unreadable: listing rebuilds it from the files.
		if (error instanceof SyntaxError || (error instanceof Error && "code" in error)) return records;
		throw error;
	}
	if (!isRecord(value) || value.version !== INDEX_VERSION || !isRecord(value.files)) return records;
	for (const [name, record] of Object.entries(value.files)) {
		const parsed = parseIndexRecord(record);
		if (parsed) records.set(name, parsed);
	}
	return records;
}

/** Replaces the index (written aside, then renamed, so readers never see half of it). */
export function writeSessionIndex(dir: string, records: ReadonlyMap<string, IndexRecord>): void {
	const path = join(dir, SESSION_INDEX_FILE);
	const temporary = `${path}.${process.pid}.tmp`;
	writeFileSync(temporary, JSON.stringify({ version: INDEX_VERSION, files: Object.fromEntries(records) }));
	renameSync(temporary, path);
}

const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
const isOptionalString = (value: unknown): value is string | undefined =>
	value === undefined || typeof value === "string";

function parseIndexRecord(value: unknown): IndexRecord | undefined {
	if (!isRecord(value) || !isRecord(value.state)) return undefined;
	const { size, mtimeMs, ino, scannedBytes } = value;
	if (!isNumber(size) || !isNumber(mtimeMs) || !isNumber(ino) || !isNumber(scannedBytes)) return undefined;
	const state = parseScanState(value.state);
	return state ? { size, mtimeMs, ino, scannedBytes, state } : undefined;
}

function parseScanState(value: Record<string, unknown>): SessionScanState | undefined {
	const { notSession, messageCount, name, firstMessage, lastActivityMs, header } = value;
	if (typeof notSession !== "boolean" || !isNumber(messageCount)) return undefined;
	if (!isOptionalString(name) || !isOptionalString(firstMessage)) return undefined;
	if (lastActivityMs !== undefined && !isNumber(lastActivityMs)) return undefined;
	const state: SessionScanState = { notSession, messageCount };
	if (name !== undefined) state.name = name;
	if (firstMessage !== undefined) state.firstMessage = firstMessage;
	if (lastActivityMs !== undefined) state.lastActivityMs = lastActivityMs;
	if (header !== undefined) {
		if (!isRecord(header)) return undefined;
		const { id, cwd, timestamp, parentSession } = header;
		if (typeof id !== "string" || typeof cwd !== "string" || typeof timestamp !== "string") return undefined;
		if (!isOptionalString(parentSession)) return undefined;
		state.header = parentSession === undefined ? { id, cwd, timestamp } : { id, cwd, timestamp, parentSession };
	}
	return state;
}
