import { join, resolve } from "node:path";
import { SessionFileStore } from "./file-store.js";
import { isValidSessionId, uuidv7 } from "./ids.js";
import { nodeIo, type SessionIo } from "./io.js";
import { DEFAULT_SESSION_LIMITS, type SessionLimits } from "./limits.js";
import { sessionFileName } from "./paths.js";
import { SessionPersistence } from "./persistence.js";
import {
	CURRENT_SESSION_VERSION,
	type SessionEntry,
	type SessionHeader,
	stderrWarningSink,
	type WarningSink,
} from "./types.js";

/** The file operations, the warning sink and the size limits a session uses (tests inject them). */
export interface StoreOptions {
	io?: SessionIo;
	warn?: WarningSink;
	limits?: SessionLimits;
}

export interface ResolvedStoreOptions {
	io: SessionIo;
	warn: WarningSink;
	limits: SessionLimits;
}

export function resolveStoreOptions(options: StoreOptions = {}): ResolvedStoreOptions {
	return {
		io: options.io ?? nodeIo,
		warn: options.warn ?? stderrWarningSink,
		limits: options.limits ?? DEFAULT_SESSION_LIMITS,
	};
}

export interface HeaderOptions {
	cwd: string;
	/** A caller-chosen id (letters, digits, `.`, `_`, `-`); default a UUIDv7. */
	id?: string;
	parentSession?: string;
	now?: Date;
}

export function createHeader(options: HeaderOptions): SessionHeader {
	const now = options.now ?? new Date();
	const id = options.id ?? uuidv7(now.getTime());
	if (!isValidSessionId(id)) throw new Error(`Invalid session id: ${JSON.stringify(id)}`);
	const header: SessionHeader = {
		type: "session",
		version: CURRENT_SESSION_VERSION,
		id,
		timestamp: now.toISOString(),
		cwd: resolve(options.cwd),
	};
	if (options.parentSession !== undefined) header.parentSession = resolve(options.parentSession);
	return header;
}

/** What a `Session` is built from. */
export interface SessionInit {
	header: SessionHeader;
	entries?: readonly SessionEntry[];
	/** Absent for an in-memory session. */
	persistence?: SessionPersistence;
	/** Where new sessions made from this one (new, fork, clone) go; absent in memory. */
	sessionDir?: string;
	/** Works in this directory instead of the header's (e.g. when that one no longer exists). */
	cwd?: string;
	options: ResolvedStoreOptions;
}

/**
 * A new session with a file `<sessionDir>/<timestamp>_<id>.jsonl`, written with its first entry
 * (at once, when `entries` are given: a fork or clone). The file's lock is taken with that write.
 */
export function newFileSessionInit(
	header: SessionHeader,
	sessionDir: string,
	entries: readonly SessionEntry[],
	options: ResolvedStoreOptions,
): SessionInit {
	const directory = resolve(sessionDir);
	const path = join(directory, sessionFileName(header.timestamp, header.id));
	const store = new SessionFileStore(path, options.io, undefined, { lock: "first-write", limits: options.limits });
	const persistence = new SessionPersistence(store, { written: false, needsRewrite: false });
	try {
		persistence.flushIfReady(header, entries);
	} catch (error) {
		persistence.close();
		throw error;
	}
	return { header, entries, persistence, sessionDir: directory, options };
}
