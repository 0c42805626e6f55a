import type { Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { errorCode, errorMessage } from "../platform/errors.js";
import { NotARegularFileError } from "../platform/file-kind.js";
import { fsPromises } from "../platform/lazy-builtins.js";
import { type OpenMode, openRegularFile } from "../platform/regular-file.js";

export { errorCode, errorMessage };

/**
 * Stats a path a tool must find, turning "does not exist" into the message models know.
 * `displayPath` is the path as the model wrote it, so the message names what it asked for.
 */
export async function statExisting(absolutePath: string, displayPath: string): Promise<Stats> {
	try {
		return await fsPromises().stat(absolutePath);
	} catch (error) {
		const code = errorCode(error);
		if (code === "ENOENT" || code === "ENOTDIR") {
			throw new Error(`File not found: ${displayPath}`, { cause: error });
		}
		throw new Error(`Cannot access ${displayPath}: ${errorMessage(error)}`, { cause: error });
	}
}

export interface ToolFileOptions {
	/** "read", "write", "edit": the verb of the error messages. */
	verb: string;
	/** The whole message when the path is a directory. */
	directoryMessage: string;
}

/**
 * Opens a file a tool works on. Only regular files are accepted: a FIFO, socket or device is
 * refused before it is opened (it could block for ever or never end), and the open itself never
 * blocks. Errors are worded for the model: "File not found: <path>", "<path> is a directory...",
 * "Cannot read <path>: it is a FIFO (named pipe), not a regular file".
 */
export async function openToolFile(
	absolutePath: string,
	displayPath: string,
	mode: OpenMode,
	options: ToolFileOptions,
): Promise<FileHandle> {
	try {
		return await openRegularFile(absolutePath, mode, displayPath);
	} catch (error) {
		if (error instanceof NotARegularFileError) {
			if (error.kind === "a directory") throw new Error(options.directoryMessage, { cause: error });
			throw new Error(`Cannot ${options.verb} ${displayPath}: it is ${error.kind}, not a regular file`, {
				cause: error,
			});
		}
		const code = errorCode(error);
		if (code === "EISDIR") throw new Error(options.directoryMessage, { cause: error });
		if ((code === "ENOENT" || code === "ENOTDIR") && mode !== "write") {
			throw new Error(`File not found: ${displayPath}`, { cause: error });
		}
		throw new Error(`Cannot ${options.verb} ${displayPath}: ${errorMessage(error)}`, { cause: error });
	}
}

/** Tools stop before touching the disk once the run is aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
	if (signal?.aborted) throw new Error("Operation aborted");
}
