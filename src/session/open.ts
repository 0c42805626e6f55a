import { readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { SessionFileStore } from "./file-store.js";
import { readSessionHeader } from "./header-reader.js";
import { loadSessionFile } from "./load.js";
import { createHeader, newFileSessionInit, resolveStoreOptions, type StoreOptions } from "./new-session.js";
import { defaultSessionDir } from "./paths.js";
import { SessionPersistence } from "./persistence.js";
import { Session } from "./session.js";
import { isSessionFileClaimed, SessionFileBusyError } from "./writer-registry.js";

export interface SessionLocation {
	cwd: string;
	/** A custom, flat session directory; default `<agentDir>/sessions/<encoded cwd>`. */
	sessionDir?: string;
	/** Default: env ATOMIC_CODING_AGENT_DIR, else ~/.atomic/agent. */
	agentDir?: string;
}

export interface CreateSessionOptions extends SessionLocation, StoreOptions {
	/** A caller-chosen session id; default a UUIDv7. */
	id?: string;
	parentSession?: string;
}

/** The directory a location's sessions live in. */
export function sessionDirFor(location: SessionLocation): string {
	return resolve(location.sessionDir ?? defaultSessionDir(location.cwd, location.agentDir));
}

/** A new session whose file appears in the session dir with its first entry. */
export function createSession(options: CreateSessionOptions): Session {
	const header = createHeader(options);
	return new Session(newFileSessionInit(header, sessionDirFor(options), [], resolveStoreOptions(options)));
}

/** A session that never touches the disk. */
export function inMemorySession(options: { cwd: string; id?: string; parentSession?: string }): Session {
	return new Session({ header: createHeader(options), options: resolveStoreOptions() });
}

/**
 * Opens a session file. A missing path is a new session that will be written there; an empty
 * file gets a header with the first entry; a file that is not a session throws
 * `Not an Atomic session file: <path>`. `cwd` overrides the header's working directory.
 * The file is locked before it is read: `SessionFileBusyError` when this process has it open,
 * `SessionFileLockedError` when another live Atomic process does. Only a regular file within the
 * size limits is read (`NotARegularFileError`, `SessionFileTooLargeError`, `SessionLineTooLongError`).
 */
export function openSession(path: string, options: StoreOptions & { cwd?: string } = {}): Session {
	const resolved = resolveStoreOptions(options);
	const absolute = resolve(path);
	// Checked before anything else so that a busy file fails fast; the store below takes the claim.
	if (isSessionFileClaimed(absolute)) throw new SessionFileBusyError(absolute);
	const sessionDir = dirname(absolute);
	const store = new SessionFileStore(absolute, resolved.io, undefined, { limits: resolved.limits });
	try {
		if (resolved.io.stat(absolute) === undefined) {
			const header = createHeader({ cwd: options.cwd ?? process.cwd() });
			const persistence = new SessionPersistence(store, { written: false, needsRewrite: false });
			return new Session({ header, persistence, sessionDir, options: resolved });
		}
		const loaded = loadSessionFile(absolute, resolved.io, resolved.warn, resolved.limits);
		store.adoptLoadedTail(loaded.tail);
		const header = loaded.header ?? createHeader({ cwd: options.cwd ?? process.cwd() });
		const persistence = new SessionPersistence(store, {
			written: loaded.header !== undefined,
			needsRewrite: loaded.migratedFrom !== undefined,
		});
		const cwd = options.cwd ?? (header.cwd ? undefined : process.cwd());
		return new Session({ header, entries: loaded.entries, persistence, sessionDir, cwd, options: resolved });
	} catch (error) {
		store.close();
		throw error;
	}
}

/** `.jsonl` files of a directory, newest modification first (none when it does not exist). */
export function sessionFilesByRecency(dir: string): { path: string; mtimeMs: number }[] {
	let names: string[];
	try {
		names = readdirSync(dir);
	} catch (error) {
		if (error instanceof Error && "code" in error && error.code === "ENOENT") return [];
		throw error;
	}
	return names
		.filter((name) => name.endsWith(".jsonl"))
		.flatMap((name) => {
			const path = join(dir, name);
			const stats = statSync(path, { throwIfNoEntry: false });
			return stats?.isFile() ? [{ path, mtimeMs: stats.mtimeMs }] : [];
		})
		.sort((a, b) => b.mtimeMs - a.mtimeMs);
}

function isCustomDir(location: SessionLocation): boolean {
	return (
		location.sessionDir !== undefined &&
		sessionDirFor(location) !== resolve(defaultSessionDir(location.cwd, location.agentDir))
	);
}

/**
 * The most recently modified session of this cwd ("continue"); in a custom directory only
 * sessions whose header names this cwd count. Undefined when there is none.
 */
export function findRecentSession(location: SessionLocation): string | undefined {
	const cwd = resolve(location.cwd);
	const filterByCwd = isCustomDir(location);
	for (const { path } of sessionFilesByRecency(sessionDirFor(location))) {
		const header = readSessionHeader(path);
		if (header && (!filterByCwd || header.cwd === cwd)) return path;
	}
	return undefined;
}

/** Opens the most recent session of this cwd, or creates a new one. */
export function continueRecentSession(options: CreateSessionOptions): Session {
	const recent = findRecentSession(options);
	return recent
		? openSession(recent, { io: options.io, warn: options.warn, limits: options.limits })
		: createSession(options);
}

/**
 * The file of the session with this id in the location's session dir: an exact id match, else
 * the only id starting with `idOrPrefix`. Throws when none or several match.
 */
export function findSessionById(idOrPrefix: string, location: SessionLocation): string {
	const dir = sessionDirFor(location);
	const matches: { path: string; id: string }[] = [];
	for (const { path } of sessionFilesByRecency(dir)) {
		const header = readSessionHeader(path);
		if (header?.id === idOrPrefix) return path;
		if (header?.id.startsWith(idOrPrefix)) matches.push({ path, id: header.id });
	}
	const [only, ...others] = matches;
	if (!only) throw new Error(`No session found matching "${idOrPrefix}" in ${dir}`);
	if (others.length > 0) {
		const ids = matches.map((match) => match.id).join(", ");
		throw new Error(`Session id prefix "${idOrPrefix}" is ambiguous in ${dir}: ${ids}`);
	}
	return only.path;
}

export function openSessionById(idOrPrefix: string, options: CreateSessionOptions): Session {
	return openSession(findSessionById(idOrPrefix, options), {
		io: options.io,
		warn: options.warn,
		limits: options.limits,
	});
}
