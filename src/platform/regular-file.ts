import {
	closeSync,
	constants,
	fstatSync,
	openSync,
	readSync,
	type Stats,
	statSync,
	unlinkSync,
	writeSync,
} from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { errorCode } from "./errors.js";
import { describeFileKind, FileTooLargeError, NotARegularFileError } from "./file-kind.js";
import { fsPromises } from "./lazy-builtins.js";

/** The most read of a configuration or resource file (settings, models.json, AGENTS.md, skills...). */
export const MAX_CONFIG_FILE_BYTES = 16 * 1024 * 1024;

/**
 * How a regular file is opened. `write` creates the file but does not empty it (the caller
 * truncates once the descriptor is known to be a regular file); `create` fails when it exists.
 */
export type OpenMode = "read" | "readWrite" | "write" | "append" | "readAppend" | "create";

const FLAGS: Record<OpenMode, number> = {
	read: constants.O_RDONLY,
	readWrite: constants.O_RDWR,
	write: constants.O_WRONLY | constants.O_CREAT,
	append: constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT,
	/** Appends, and can read back what the file holds (its last byte, say). */
	readAppend: constants.O_RDWR | constants.O_APPEND | constants.O_CREAT,
	create: constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
};

/**
 * Non-blocking, so that opening a FIFO returns at once (and fails with ENXIO for writing when
 * nobody reads it) instead of holding a thread until a peer appears. It changes nothing for
 * regular files, which are all these descriptors are ever used for.
 */
function flagsFor(mode: OpenMode): number {
	return FLAGS[mode] | constants.O_NONBLOCK;
}

/** The error for a descriptor or path that turned out not to be a regular file. */
function refuseUnlessRegular(stats: Stats, displayPath: string): void {
	if (!stats.isFile()) throw new NotARegularFileError(displayPath, describeFileKind(stats));
}

/** ENXIO: a FIFO nobody reads, or a socket, was opened. */
function translateOpenError(error: unknown, displayPath: string): unknown {
	if (errorCode(error) === "ENXIO") return new NotARegularFileError(displayPath, "a FIFO or socket");
	return error;
}

/**
 * Opens a regular file without ever blocking: the path is checked first (a FIFO, socket, device or
 * directory is refused with `NotARegularFileError` before any open), then opened non-blocking and
 * checked again through the descriptor, which closes the race of a path swapped in between.
 * Errors of the open itself (ENOENT, EACCES...) are thrown as they are.
 */
export async function openRegularFile(path: string, mode: OpenMode, displayPath = path): Promise<FileHandle> {
	const before = await fsPromises()
		.stat(path)
		.catch((error: unknown) => {
			// A missing file is the open's to report (or to create).
			if (errorCode(error) === "ENOENT") return undefined;
			throw error;
		});
	if (before) refuseUnlessRegular(before, displayPath);
	let handle: FileHandle;
	try {
		handle = await fsPromises().open(path, flagsFor(mode), 0o666);
	} catch (error) {
		throw translateOpenError(error, displayPath);
	}
	try {
		refuseUnlessRegular(await handle.stat(), displayPath);
	} catch (error) {
		await handle.close();
		throw error;
	}
	return handle;
}

/** `openRegularFile` for synchronous callers; returns a file descriptor. */
export function openRegularFileSync(path: string, mode: OpenMode, displayPath = path): number {
	const before = statSync(path, { throwIfNoEntry: false });
	if (before) refuseUnlessRegular(before, displayPath);
	let fd: number;
	try {
		fd = openSync(path, flagsFor(mode), 0o666);
	} catch (error) {
		throw translateOpenError(error, displayPath);
	}
	try {
		refuseUnlessRegular(fstatSync(fd), displayPath);
	} catch (error) {
		closeSync(fd);
		throw error;
	}
	return fd;
}

export interface ReadLimit {
	/** Files larger than this are refused with `FileTooLargeError`. */
	maxBytes: number;
	/** How errors name the file (default: the path). */
	displayPath?: string;
}

/** A whole regular file of at most `maxBytes` (a file growing past it while read is refused too). */
export async function readRegularFile(path: string, limit: ReadLimit): Promise<Buffer> {
	const displayPath = limit.displayPath ?? path;
	const handle = await openRegularFile(path, "read", displayPath);
	try {
		const { size } = await handle.stat();
		if (size > limit.maxBytes) throw new FileTooLargeError(displayPath, size, limit.maxBytes);
		let buffer: Buffer = Buffer.allocUnsafe(initialCapacity(size, limit.maxBytes));
		let length = 0;
		for (;;) {
			if (length === buffer.length) buffer = grow(buffer, displayPath, limit.maxBytes);
			const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
			if (bytesRead === 0) return buffer.subarray(0, length);
			length += bytesRead;
		}
	} finally {
		await handle.close();
	}
}

/** `readRegularFile` for synchronous callers (configuration read at start-up). */
export function readRegularFileSync(path: string, limit: ReadLimit): Buffer {
	const displayPath = limit.displayPath ?? path;
	const fd = openRegularFileSync(path, "read", displayPath);
	try {
		const { size } = fstatSync(fd);
		if (size > limit.maxBytes) throw new FileTooLargeError(displayPath, size, limit.maxBytes);
		let buffer: Buffer = Buffer.allocUnsafe(initialCapacity(size, limit.maxBytes));
		let length = 0;
		for (;;) {
			if (length === buffer.length) buffer = grow(buffer, displayPath, limit.maxBytes);
			const bytesRead = readSync(fd, buffer, length, buffer.length - length, length);
			if (bytesRead === 0) return buffer.subarray(0, length);
			length += bytesRead;
		}
	} finally {
		closeSync(fd);
	}
}

/** Room for the whole file and one more byte, which tells that it grew while being read. */
function initialCapacity(size: number, maxBytes: number): number {
	return Math.min(maxBytes + 1, size + 1);
}

/** A full buffer: double it, refusing the file once more than `maxBytes` were read. */
function grow(buffer: Buffer, displayPath: string, maxBytes: number): Buffer {
	if (buffer.length > maxBytes) throw new FileTooLargeError(displayPath, buffer.length, maxBytes);
	const larger = Buffer.allocUnsafe(Math.min(maxBytes + 1, buffer.length * 2));
	buffer.copy(larger);
	return larger;
}

function isMissing(error: unknown): boolean {
	const code = errorCode(error);
	return code === "ENOENT" || code === "ENOTDIR";
}

/** A UTF-8 text file, or undefined when it does not exist. Refuses special and oversized files. */
export function readOptionalTextFileSync(path: string, limit: ReadLimit): string | undefined {
	try {
		return readRegularFileSync(path, limit).toString("utf8");
	} catch (error) {
		if (isMissing(error)) return undefined;
		throw error;
	}
}

/** `readOptionalTextFileSync` without blocking the event loop. */
export async function readOptionalTextFile(path: string, limit: ReadLimit): Promise<string | undefined> {
	try {
		return (await readRegularFile(path, limit)).toString("utf8");
	} catch (error) {
		if (isMissing(error)) return undefined;
		throw error;
	}
}

/**
 * Replaces the content of a regular file (creating it), refusing special files: the descriptor
 * is checked before anything is truncated.
 */
export async function writeRegularFile(path: string, data: string | Uint8Array, displayPath = path): Promise<void> {
	const handle = await openRegularFile(path, "write", displayPath);
	try {
		await handle.truncate(0);
		await handle.writeFile(data);
	} finally {
		await handle.close();
	}
}

/**
 * Copies a regular file of at most `maxBytes` into a new file `to` (EEXIST when it exists, so
 * nothing is ever overwritten). A failure removes what was written of the copy.
 */
export function copyRegularFileSync(from: string, to: string, limit: ReadLimit): void {
	const displayPath = limit.displayPath ?? from;
	const source = openRegularFileSync(from, "read", displayPath);
	try {
		const { size } = fstatSync(source);
		if (size > limit.maxBytes) throw new FileTooLargeError(displayPath, size, limit.maxBytes);
		const target = openRegularFileSync(to, "create");
		try {
			const buffer = Buffer.allocUnsafe(1024 * 1024);
			let copied = 0;
			for (;;) {
				const bytesRead = readSync(source, buffer, 0, buffer.length, copied);
				if (bytesRead === 0) break;
				copied += bytesRead;
				if (copied > limit.maxBytes) throw new FileTooLargeError(displayPath, copied, limit.maxBytes);
				let written = 0;
				while (written < bytesRead) written += writeSync(target, buffer, written, bytesRead - written);
			}
		} catch (error) {
			closeSync(target);
			unlinkSync(to);
			throw error;
		}
		closeSync(target);
	} finally {
		closeSync(source);
	}
}
