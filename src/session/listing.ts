import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { NotARegularFileError } from "../platform/file-kind.js";
import { DEFAULT_SESSION_LIMITS } from "./limits.js";
import { LineTooLongError } from "./line-reader.js";
import { type IndexRecord, readSessionIndex, SESSION_INDEX_FILE, writeSessionIndex } from "./session-index.js";
import { emptyScanState, type SessionScanState, scanSessionLines } from "./session-scan.js";
import { stderrWarningSink, type WarningSink } from "./types.js";

export interface SessionInfo {
	path: string;
	id: string;
	cwd: string;
	name?: string;
	parentSessionPath?: string;
	/** The header's timestamp. */
	created: Date;
	/** The latest user or assistant message, else the header's timestamp, else the file's mtime. */
	modified: Date;
	messageCount: number;
	/** The first user message's text (its first 1000 characters), or "(no messages)". */
	firstMessage: string;
}

export interface ListOptions {
	/** Called for every file that is actually read, with the byte it is read from (tests count these). */
	onScan?: (path: string, fromByte: number) => void;
	/** Where a failure to update the index is reported (listing itself still succeeds). */
	warn?: WarningSink;
}

/**
 * The sessions of a directory, most recently modified first; with `cwdFilter`, only those whose
 * header names that directory. Results are cached in `.atomic-session-index.json`: an unchanged
 * file is not read, a grown one (sessions are append-only) is read from where the last scan
 * stopped, and a replaced or shrunk one is read again from the start.
 */
export function listSessions(dir: string, cwdFilter?: string, options: ListOptions = {}): SessionInfo[] {
	const directory = resolve(dir);
	const names = sessionFileNames(directory);
	if (names === undefined) return [];
	const index = readSessionIndex(directory);
	const next = new Map<string, IndexRecord>();
	let changed = names.length !== index.size;
	const infos: SessionInfo[] = [];
	const cwd = cwdFilter === undefined ? undefined : resolve(cwdFilter);
	for (const name of names) {
		const path = join(directory, name);
		const stats = statSync(path, { throwIfNoEntry: false });
		if (!stats?.isFile()) continue;
		let record = index.get(name);
		if (!record || record.size !== stats.size || record.mtimeMs !== stats.mtimeMs || record.ino !== stats.ino) {
			const resume = record && record.ino === stats.ino && stats.size >= record.scannedBytes;
			const from = resume && record ? record.scannedBytes : 0;
			const state: SessionScanState = resume && record ? structuredClone(record.state) : emptyScanState();
			options.onScan?.(path, from);
			const scannedBytes = scanOrRefuse(path, from, state, stats.size);
			record = { size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino, scannedBytes, state };
			changed = true;
		}
		next.set(name, record);
		const info = toInfo(path, record, stats.mtimeMs);
		if (info && (cwd === undefined || info.cwd === cwd)) infos.push(info);
	}
	if (changed) saveIndex(directory, next, options.warn ?? stderrWarningSink);
	return infos.sort((a, b) => b.modified.getTime() - a.modified.getTime());
}

/**
 * Scans a file, or marks it as not a session when Atomic would refuse to open it (too large, a
 * line too long, replaced by a special file): it is then left out until it changes.
 */
function scanOrRefuse(path: string, from: number, state: SessionScanState, size: number): number {
	if (size > DEFAULT_SESSION_LIMITS.maxFileBytes) {
		state.notSession = true;
		return size;
	}
	try {
		return scanSessionLines(path, from, state);
	} catch (error) {
		if (!(error instanceof LineTooLongError || error instanceof NotARegularFileError)) throw error;
		state.notSession = true;
		return size;
	}
}

function sessionFileNames(directory: string): string[] | undefined {
	try {
		return readdirSync(directory).filter((name) => name.endsWith(".jsonl"));
	} catch (error) {
		if (error instanceof Error && "code" in error && error.code === "ENOENT") return undefined;
		throw error;
	}
}

function toInfo(path: string, record: IndexRecord, mtimeMs: number): SessionInfo | undefined {
	const { header, notSession } = record.state;
	if (!header || notSession) return undefined;
	const created = Date.parse(header.timestamp);
	const modified = record.state.lastActivityMs ?? (Number.isNaN(created) ? mtimeMs : created);
	const info: SessionInfo = {
		path,
		id: header.id,
		cwd: header.cwd,
		created: new Date(Number.isNaN(created) ? mtimeMs : created),
		modified: new Date(modified),
		messageCount: record.state.messageCount,
		firstMessage: record.state.firstMessage ?? "(no messages)",
	};
	if (record.state.name !== undefined) info.name = record.state.name;
	if (header.parentSession !== undefined) info.parentSessionPath = header.parentSession;
	return info;
}

function saveIndex(directory: string, records: ReadonlyMap<string, IndexRecord>, warn: WarningSink): void {
	try {
		writeSessionIndex(directory, records);
	} catch (error) {
		// The index is only a cache: the listing is complete without it, so a read-only
		// directory or a full disk is reported and listing goes on.
		const reason = error instanceof Error ? error.message : String(error);
		warn(`Warning: could not update ${join(directory, SESSION_INDEX_FILE)}: ${reason}`);
	}
}
