import { closeSync, constants, openSync, statSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { errorCode } from "../platform/errors.js";
import { randomHex } from "../platform/random.js";
import { readRegularFileSync } from "../platform/regular-file.js";
import { isRecord } from "./message-guards.js";
import { processExists, processStartTime } from "./process-identity.js";

/** Who holds a session file's lock, as its lock file says. */
export interface LockHolder {
	pid: number;
	/** The holder's start time (see processStartTime); absent where it cannot be known. */
	startTime?: string;
	hostname: string;
	/** Tells this process's own lock apart from any other one. */
	token: string;
	acquiredAt: string;
}

/** A lock file that cannot be parsed yet is young enough to be one being written right now. */
const UNREADABLE_LOCK_GRACE_MS = 10_000;
const MAX_LOCK_FILE_BYTES = 4096;

export function lockPathFor(sessionPath: string): string {
	return `${sessionPath}.lock`;
}

/** Another live process holds the session file. */
export class SessionFileLockedError extends Error {
	constructor(
		readonly path: string,
		readonly holder: LockHolder | undefined,
	) {
		const who = holder
			? `another Atomic process (pid ${holder.pid}${holder.hostname === hostname() ? "" : ` on ${holder.hostname}`})`
			: "another Atomic process";
		super(
			`Session file is in use by ${who}: ${path}. Close that process or open another session ` +
				`(if no such process is running, delete ${lockPathFor(path)}).`,
		);
		this.name = "SessionFileLockedError";
	}
}

/** Locks held by this process, released at exit even when nobody closed their session. */
const held = new Map<string, SessionLock>();
let exitHookInstalled = false;

function releaseAllAtExit(): void {
	for (const lock of [...held.values()]) lock.release();
}

/**
 * The advisory, cross-process lock on one session file: a file `<session>.lock` created with
 * O_EXCL and holding the owner's pid, start time, host name and a random token. A lock whose
 * process is gone, or whose pid now belongs to a process started later, is stale and taken
 * over; so is one a crash left unreadable. Locks held here are released on `release` and when
 * the process exits.
 */
export class SessionLock {
	private released = false;

	private constructor(
		readonly sessionPath: string,
		readonly holder: Readonly<LockHolder>,
	) {}

	get lockPath(): string {
		return lockPathFor(this.sessionPath);
	}

	/** Takes the lock, or throws `SessionFileLockedError`; ENOENT when the directory is missing. */
	static acquire(sessionPath: string): SessionLock {
		const holder: LockHolder = {
			pid: process.pid,
			hostname: hostname(),
			token: randomHex(8),
			acquiredAt: new Date().toISOString(),
		};
		const startTime = processStartTime(process.pid);
		if (startTime !== undefined) holder.startTime = startTime;
		const path = lockPathFor(sessionPath);
		// A stale lock is removed and the creation tried again; a competitor may win that race.
		for (let attempt = 0; attempt < 3; attempt++) {
			if (tryCreate(path, holder)) {
				const lock = new SessionLock(sessionPath, holder);
				held.set(path, lock);
				if (!exitHookInstalled) {
					exitHookInstalled = true;
					process.on("exit", releaseAllAtExit);
				}
				return lock;
			}
			const current = readHolder(path);
			if (current === "missing") continue;
			if (!isStale(current, path)) throw new SessionFileLockedError(sessionPath, current ?? undefined);
			removeIfPresent(path);
		}
		throw new SessionFileLockedError(sessionPath, undefined);
	}

	/** Removes the lock file if it is still this lock's (never one another process took over). */
	release(): void {
		if (this.released) return;
		this.released = true;
		const path = this.lockPath;
		if (held.get(path) === this) held.delete(path);
		const current = readHolder(path);
		if (current !== "missing" && current?.token === this.holder.token) removeIfPresent(path);
	}
}

function tryCreate(path: string, holder: LockHolder): boolean {
	let fd: number;
	try {
		fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
	} catch (error) {
		if (errorCode(error) === "EEXIST") return false;
		throw error;
	}
	try {
		writeSync(fd, `${JSON.stringify(holder)}\n`);
	} catch (error) {
		closeSync(fd);
		removeIfPresent(path);
		throw error;
	}
	closeSync(fd);
	return true;
}

/** The holder a lock file names; null when it cannot be parsed; "missing" when it is gone. */
function readHolder(path: string): LockHolder | null | "missing" {
	let text: string;
	try {
		text = readRegularFileSync(path, { maxBytes: MAX_LOCK_FILE_BYTES }).toString("utf8");
	} catch (error) {
		const code = errorCode(error);
		if (code === "ENOENT") return "missing";
		// Too large, or not a regular file: not a lock this program wrote.
		if (code === "EFBIG" || code === "ENOTREGULAR") return null;
		throw error;
	}
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch (error) {
		if (error instanceof SyntaxError) return null;
		throw error;
	}
	return toHolder(value) ?? null;
}

function toHolder(value: unknown): LockHolder | undefined {
	if (!isRecord(value)) return undefined;
	const { pid, startTime, token, acquiredAt } = value;
	const host = value.hostname;
	if (typeof pid !== "number" || !Number.isInteger(pid) || pid <= 0) return undefined;
	if (typeof host !== "string" || typeof token !== "string" || typeof acquiredAt !== "string") return undefined;
	if (startTime !== undefined && typeof startTime !== "string") return undefined;
	const holder: LockHolder = { pid, hostname: host, token, acquiredAt };
	if (startTime !== undefined) holder.startTime = startTime;
	return holder;
}

/**
 * Whether a lock may be taken over: its process is gone, or its pid was reused (another start
 * time), or it is an unreadable file older than a few seconds. A lock of another host cannot be
 * checked and is never stale.
 */
function isStale(holder: LockHolder | null, path: string): boolean {
	if (holder === null) {
		const stats = statSync(path, { throwIfNoEntry: false });
		return stats === undefined || Date.now() - stats.mtimeMs > UNREADABLE_LOCK_GRACE_MS;
	}
	if (holder.hostname !== hostname()) return false;
	// This process's own lock is live only while this process holds it (a pid of a previous life).
	if (holder.pid === process.pid) return held.get(path)?.holder.token !== holder.token;
	if (!processExists(holder.pid)) return true;
	const startTime = processStartTime(holder.pid);
	return holder.startTime !== undefined && startTime !== undefined && startTime !== holder.startTime;
}

function removeIfPresent(path: string): void {
	try {
		unlinkSync(path);
	} catch (error) {
		if (errorCode(error) !== "ENOENT") throw error;
	}
}
