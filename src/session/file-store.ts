import { dirname } from "node:path";
import { errorCode } from "../platform/errors.js";
import type { SessionIo } from "./io.js";
import {
	DEFAULT_SESSION_LIMITS,
	SessionFileTooLargeError,
	type SessionLimits,
	SessionLineTooLongError,
} from "./limits.js";
import type { TailState } from "./load.js";
import { SessionLock } from "./session-lock.js";
import { claimSessionFile, releaseSessionFile } from "./writer-registry.js";

export interface FileStoreOptions {
	/**
	 * When the cross-process lock is taken: `"now"` (an opened file: a busy one fails at once; when
	 * the directory does not exist yet, at the first write) or `"first-write"` (a new file with a
	 * fresh name, which nobody else can know before it exists).
	 */
	lock?: "now" | "first-write";
	limits?: SessionLimits;
}

const LINE_FEED = 0x0a;

/**
 * The one writer of a session file. Appends are single writes of whole lines; a failed append
 * leaves the file as it was; every append starts on a fresh line (a torn last line, ours or
 * another program's, is ended or cut first), so that no two records are ever fused on one line.
 * Within the process the file is claimed (writer-registry); across processes it is locked
 * (`<file>.lock`, see SessionLock) from opening, or from the first write of a new file, to `close`.
 */
export class SessionFileStore {
	readonly path: string;
	private fd: number | undefined;
	private tail: TailState;
	private closed = false;
	private lock: SessionLock | undefined;
	private readonly limits: SessionLimits;
	/** The file's size after this writer's last append: when it still has it, it ends with an LF. */
	private sizeAfterLastAppend: number | undefined;

	/**
	 * Claims `path`: throws `SessionFileBusyError` when another writer of this process holds it,
	 * `SessionFileLockedError` when another live process does.
	 */
	constructor(
		path: string,
		private readonly io: SessionIo,
		tail: TailState = { kind: "clean" },
		options: FileStoreOptions = {},
	) {
		this.path = claimSessionFile(path);
		this.tail = tail;
		this.limits = options.limits ?? DEFAULT_SESSION_LIMITS;
		if ((options.lock ?? "now") === "now") {
			try {
				this.lock = lockIfDirectoryExists(this.path);
			} catch (error) {
				releaseSessionFile(this.path);
				throw error;
			}
		}
	}

	/** The state of the file's last line as loading found it (read after the lock was taken). */
	adoptLoadedTail(tail: TailState): void {
		this.tail = tail;
	}

	/** Whether this writer has the file open (from its first append until `close` or `replace`). */
	get isOpen(): boolean {
		return this.fd !== undefined;
	}

	/** Whether the file exists on disk (a new session's file appears with its first flush). */
	exists(): boolean {
		return this.io.stat(this.path) !== undefined;
	}

	/**
	 * Appends `text` (complete lines, each ending in LF) with one write, creating the file and its
	 * directory when needed. On failure the file is cut back to its previous size (or removed if
	 * this call created it) and the error is rethrown.
	 */
	append(text: string): void {
		this.assertOpen();
		const bytes = Buffer.from(text, "utf8");
		this.checkLineLengths(bytes);
		let created = false;
		if (this.fd === undefined) {
			created = !this.exists();
			if (created) this.io.mkdir(dirname(this.path));
			this.lock ??= SessionLock.acquire(this.path);
			if (created) {
				this.create(bytes);
				return;
			}
			this.fd = this.io.open(this.path, "a");
		}
		const fd = this.fd;
		const prefix = this.separator(fd);
		const previousSize = this.io.size(fd);
		const grownSize = previousSize + prefix.length + bytes.length;
		if (grownSize > this.limits.maxFileBytes) {
			// Nothing written; a file this call created is removed again.
			const error = new SessionFileTooLargeError(this.path, grownSize, this.limits.maxFileBytes, "append");
			this.undoAppend(fd, previousSize, created, error);
		}
		try {
			this.writeAll(fd, prefix.length > 0 ? Buffer.concat([prefix, bytes]) : bytes);
		} catch (error) {
			this.undoAppend(fd, previousSize, created, error);
		}
		this.tail = { kind: "clean" };
		this.sizeAfterLastAppend = grownSize;
	}

	/**
	 * A new file with its first lines, whole or not at all: written to a temporary file, then
	 * renamed into place, so a process killed meanwhile leaves no empty or torn file that a
	 * later `--continue` would pass over. Later appends open the file.
	 */
	private create(bytes: Buffer): void {
		if (bytes.length > this.limits.maxFileBytes) {
			throw new SessionFileTooLargeError(this.path, bytes.length, this.limits.maxFileBytes, "append");
		}
		this.renameIntoPlace(this.writeTemporary(bytes));
		this.tail = { kind: "clean" };
		this.sizeAfterLastAppend = bytes.length;
	}

	/**
	 * Replaces the whole file with `text`: written to a temporary file first, then renamed over
	 * the old one, so a failure at any point leaves the old file intact.
	 */
	replace(text: string): void {
		this.assertOpen();
		const bytes = Buffer.from(text, "utf8");
		this.checkLineLengths(bytes);
		if (bytes.length > this.limits.maxFileBytes) {
			throw new SessionFileTooLargeError(this.path, bytes.length, this.limits.maxFileBytes, "append");
		}
		this.lock ??= SessionLock.acquire(this.path);
		const temporary = this.writeTemporary(bytes);
		this.closeFd();
		this.renameIntoPlace(temporary);
		this.tail = { kind: "clean" };
		this.sizeAfterLastAppend = bytes.length;
	}

	/** Writes `bytes` to a temporary file beside the session file; on failure nothing is left. */
	private writeTemporary(bytes: Buffer): string {
		const temporary = `${this.path}.${process.pid}.tmp`;
		const fd = this.io.open(temporary, "w");
		try {
			this.writeAll(fd, bytes);
		} catch (error) {
			this.io.close(fd);
			this.io.unlink(temporary);
			throw error;
		}
		this.io.close(fd);
		return temporary;
	}

	/** Renames a temporary file over the session file (atomic); on failure the temporary file goes. */
	private renameIntoPlace(temporary: string): void {
		try {
			this.io.rename(temporary, this.path);
		} catch (error) {
			this.io.unlink(temporary);
			throw error;
		}
	}

	/** Closes the file and releases the claim and the lock; later appends throw. */
	close(): void {
		if (this.closed) return;
		this.closed = true;
		try {
			this.closeFd();
		} finally {
			releaseSessionFile(this.path);
			this.lock?.release();
		}
	}

	/**
	 * What must precede the next record so that it starts a line: nothing when the file is empty or
	 * ends with an LF (always so right after this writer's own append), else an LF. A torn line
	 * that did not parse when the file was loaded is cut off first, if the file is still as loaded.
	 */
	private separator(fd: number): Buffer {
		let size = this.io.size(fd);
		if (this.tail.kind === "torn-invalid") {
			if (size === this.tail.end) {
				this.io.truncate(fd, this.tail.completeEnd);
				size = this.tail.completeEnd;
			}
			this.tail = { kind: "clean" };
		}
		if (size === 0 || size === this.sizeAfterLastAppend) return Buffer.alloc(0);
		const last = Buffer.alloc(1);
		const read = this.io.read(fd, last, 0, 1, size - 1);
		return read === 1 && last[0] === LINE_FEED ? Buffer.alloc(0) : Buffer.from("\n");
	}

	/** Refuses an entry that would make a line longer than loading accepts. */
	private checkLineLengths(bytes: Buffer): void {
		const max = this.limits.maxLineBytes;
		if (bytes.length <= max) return;
		let start = 0;
		for (let lineFeed = bytes.indexOf(LINE_FEED); lineFeed !== -1; lineFeed = bytes.indexOf(LINE_FEED, start)) {
			if (lineFeed - start > max) throw new SessionLineTooLongError(this.path, undefined, max);
			start = lineFeed + 1;
		}
		if (bytes.length - start > max) throw new SessionLineTooLongError(this.path, undefined, max);
	}

	private writeAll(fd: number, bytes: Buffer): void {
		let offset = 0;
		while (offset < bytes.length) {
			const written = this.io.write(fd, bytes, offset, bytes.length - offset);
			if (written <= 0) throw new Error(`Writing ${this.path} made no progress`);
			offset += written;
		}
	}

	private undoAppend(fd: number, previousSize: number, created: boolean, error: unknown): never {
		try {
			if (created) {
				this.closeFd();
				this.io.unlink(this.path);
			} else {
				this.io.truncate(fd, previousSize);
			}
		} catch (undoError) {
			const reason = error instanceof Error ? error.message : String(error);
			const undoReason = undoError instanceof Error ? undoError.message : String(undoError);
			throw new Error(
				`Appending to ${this.path} failed (${reason}) and restoring its previous size failed too (${undoReason})`,
				{ cause: error },
			);
		}
		throw error;
	}

	private closeFd(): void {
		if (this.fd === undefined) return;
		const fd = this.fd;
		this.fd = undefined;
		this.io.close(fd);
	}

	private assertOpen(): void {
		if (this.closed) throw new Error(`Session file ${this.path} is closed`);
	}
}

/**
 * The lock, taken now; undefined when no lock file can be made there yet (the directory does not
 * exist, or is read-only: the session can still be opened and read), in which case it is taken,
 * or its failure reported, at the first write.
 */
function lockIfDirectoryExists(path: string): SessionLock | undefined {
	try {
		return SessionLock.acquire(path);
	} catch (error) {
		const code = errorCode(error);
		if (code === "ENOENT" || code === "EACCES" || code === "EPERM" || code === "EROFS") return undefined;
		throw error;
	}
}
