import { dirname } from "node:path";
import type { SessionIo } from "./io.js";
import type { TailState } from "./load.js";
import { claimSessionFile, releaseSessionFile } from "./writer-registry.js";

/**
 * The one writer of a session file in this process. Appends are single writes of whole lines; a
 * failed append leaves the file as it was; a torn last line is repaired before the next append so
 * that no two records are ever fused on one line.
 */
export class SessionFileStore {
	readonly path: string;
	private fd: number | undefined;
	private tail: TailState;
	private closed = false;

	/** Claims `path` (throws `SessionFileBusyError` when another writer of this process holds it). */
	constructor(
		path: string,
		private readonly io: SessionIo,
		tail: TailState = { kind: "clean" },
	) {
		this.path = claimSessionFile(path);
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
		let created = false;
		if (this.fd === undefined) {
			created = !this.exists();
			if (created) this.io.mkdir(dirname(this.path));
			this.fd = this.io.open(this.path, "a");
		}
		const fd = this.fd;
		const prefix = this.repairTail(fd);
		const previousSize = this.io.size(fd);
		try {
			this.writeAll(fd, Buffer.from(prefix + text, "utf8"));
		} catch (error) {
			this.undoAppend(fd, previousSize, created, error);
		}
		this.tail = { kind: "clean" };
	}

	/**
	 * Replaces the whole file with `text`: written to a temporary file first, then renamed over
	 * the old one, so a failure at any point leaves the old file intact.
	 */
	replace(text: string): void {
		this.assertOpen();
		const temporary = `${this.path}.${process.pid}.tmp`;
		const fd = this.io.open(temporary, "w");
		try {
			this.writeAll(fd, Buffer.from(text, "utf8"));
		} catch (error) {
			this.io.close(fd);
			this.io.unlink(temporary);
			throw error;
		}
		this.io.close(fd);
		this.closeFd();
		try {
			this.io.rename(temporary, this.path);
		} catch (error) {
			this.io.unlink(temporary);
			throw error;
		}
		this.tail = { kind: "clean" };
	}

	/** Closes the file and releases the claim; later appends throw. */
	close(): void {
		if (this.closed) return;
		this.closed = true;
		try {
			this.closeFd();
		} finally {
			releaseSessionFile(this.path);
		}
	}

	/** Returns what must precede the next record: LF after a valid torn line; cuts an invalid one. */
	private repairTail(fd: number): string {
		if (this.tail.kind === "torn-valid") return "\n";
		if (this.tail.kind === "torn-invalid") {
			this.io.truncate(fd, this.tail.completeEnd);
			this.tail = { kind: "clean" };
		}
		return "";
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
