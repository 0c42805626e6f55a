import { closeSync, fstatSync, ftruncateSync, readSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { ensureDirectorySync } from "../platform/ensure-directory.js";
import { openRegularFileSync } from "../platform/regular-file.js";

/**
 * The file operations the session store performs, so that tests can make one fail (a write that
 * stores half its bytes and then throws ENOSPC). Every function may throw the `fs` error it models.
 */
export interface SessionIo {
	/**
	 * `"r"` reads; `"a"` appends (and can read back), creating the file; `"w"` creates or empties
	 * the file. Only regular files are opened, and never in a way that blocks: a FIFO, socket or
	 * device is refused (`NotARegularFileError`).
	 */
	open(path: string, flags: "r" | "a" | "w"): number;
	/** Bytes read into `buffer` at `offset`; 0 at end of file. */
	read(fd: number, buffer: Buffer, offset: number, length: number, position: number): number;
	/** Bytes written; may be fewer than `length` (the caller writes the rest). */
	write(fd: number, buffer: Buffer, offset: number, length: number): number;
	truncate(fd: number, length: number): void;
	close(fd: number): void;
	/** The size of an open file. */
	size(fd: number): number;
	/** Size, modification time and inode of a path, or undefined when it does not exist. */
	stat(path: string): { size: number; mtimeMs: number; ino: number } | undefined;
	unlink(path: string): void;
	rename(from: string, to: string): void;
	/** Creates a directory and its parents; no error when it exists; never loops (see ensureDirectory). */
	mkdir(path: string): void;
}

export const nodeIo: SessionIo = {
	open: (path, flags) => {
		if (flags === "r") return openRegularFileSync(path, "read");
		if (flags === "a") return openRegularFileSync(path, "readAppend");
		const fd = openRegularFileSync(path, "write");
		try {
			ftruncateSync(fd, 0);
		} catch (error) {
			closeSync(fd);
			throw error;
		}
		return fd;
	},
	read: (fd, buffer, offset, length, position) => readSync(fd, buffer, offset, length, position),
	write: (fd, buffer, offset, length) => writeSync(fd, buffer, offset, length),
	truncate: (fd, length) => ftruncateSync(fd, length),
	close: (fd) => closeSync(fd),
	size: (fd) => fstatSync(fd).size,
	stat: (path) => {
		const stats = statSync(path, { throwIfNoEntry: false });
		return stats ? { size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino } : undefined;
	},
	unlink: (path) => unlinkSync(path),
	rename: (from, to) => renameSync(from, to),
	mkdir: (path) => ensureDirectorySync(path),
};
