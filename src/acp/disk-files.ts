import { dirname } from "node:path";
import { ensureDirectory } from "../platform/ensure-directory.js";
import { FileTooLargeError, formatBytes, NotARegularFileError } from "../platform/file-kind.js";
import { readRegularFile, writeRegularFile } from "../platform/regular-file.js";
import type { TextFileBackend } from "../tools/index.js";

/** The most the disk half reads of one file (what the edit tool accepts). */
export const MAX_DISK_TEXT_BYTES = 16 * 1024 * 1024;

function throwIfAborted(signal: AbortSignal | undefined): void {
	if (signal?.aborted) throw new Error("Operation aborted");
}

/** A refusal of the platform helpers, worded to follow "Cannot read <path>: ". */
function refusal(error: unknown): unknown {
	if (error instanceof NotARegularFileError) {
		return new Error(`it is ${error.kind}, not a regular file`, { cause: error });
	}
	if (error instanceof FileTooLargeError) {
		const limit = formatBytes(error.maxBytes);
		return new Error(`it is too large (${formatBytes(error.size)}; at most ${limit} is read)`, { cause: error });
	}
	return error;
}

/**
 * The disk half of a session whose editor offers only one of `fs/read_text_file` and
 * `fs/write_text_file`, with the disk tools' guards: regular files only (a FIFO, socket or device
 * is refused before it is opened, and opens never block), reads bounded by MAX_DISK_TEXT_BYTES,
 * and parent folders created one level at a time (never looping like `mkdir -p` on Node 20).
 * Errors other than refusals (ENOENT, EACCES...) are thrown as they are.
 */
export const diskTextFiles: TextFileBackend = {
	async readTextFile(path, signal) {
		throwIfAborted(signal);
		try {
			return (await readRegularFile(path, { maxBytes: MAX_DISK_TEXT_BYTES })).toString("utf8");
		} catch (error) {
			throw refusal(error);
		}
	},
	async writeTextFile(path, content, signal) {
		throwIfAborted(signal);
		try {
			await ensureDirectory(dirname(path));
			throwIfAborted(signal);
			await writeRegularFile(path, content);
		} catch (error) {
			throw refusal(error);
		}
	},
};
