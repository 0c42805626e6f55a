import { closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ensureDirectorySync } from "../platform/ensure-directory.js";
import { errorCode } from "../platform/errors.js";
import { randomHex } from "../platform/random.js";
import {
	reserveSpillBytes,
	spillBudget,
	spillFileClosed,
	spillFileFailed,
	spillFileName,
	trackSpillFile,
} from "./spill-files.js";
import { formatSize } from "./truncate.js";

/** The full-output file stops growing at this size and ends with a marker line. */
export const MAX_SPILL_BYTES = 64 * 1024 * 1024;

/**
 * The file that receives a command's full output once it no longer fits the tail. Writes are
 * synchronous: they go to the page cache in microseconds, and they keep memory bounded without
 * having to pause the child's streams for backpressure. Any file-system failure makes the file
 * unusable (`close` then returns undefined) instead of failing the command. Every file counts
 * against the process-wide budget of spill-files.ts, which also removes them (see there).
 */
export class SpillFile {
	readonly path: string;
	readonly #maxBytes: number;
	readonly #tracked: ReturnType<typeof trackSpillFile>;
	#fd: number | undefined;
	#written = 0;
	#endsWithNewline = true;
	#capped = false;

	private constructor(path: string, fd: number, maxBytes: number, dir: string) {
		this.path = path;
		this.#fd = fd;
		this.#maxBytes = maxBytes;
		this.#tracked = trackSpillFile(path, dir);
	}

	/** Opens `<dir>/atomic-bash-<pid>-<16 hex>.log` (mode 0600; dir created 0700); undefined when refused. */
	static create(dir: string, maxBytes: number = MAX_SPILL_BYTES): SpillFile | undefined {
		const path = join(dir, spillFileName(randomHex(8)));
		try {
			return new SpillFile(path, openInDirectory(dir, path), maxBytes, dir);
		} catch (error) {
			// The output is still returned, only without a full copy on disk.
			reportSpillFailure(path, error);
			return undefined;
		}
	}

	/** Appends `text` (or its UTF-8); `bytes` is its UTF-8 length when the caller already knows it. */
	write(text: string | Buffer, bytes: number = typeof text === "string" ? Buffer.byteLength(text) : text.length): void {
		if (this.#fd === undefined || this.#capped || text.length === 0) return;
		const fileRoom = this.#maxBytes - this.#written;
		const room = reserveSpillBytes(this.#tracked, Math.min(bytes, fileRoom));
		if (bytes <= room) {
			this.#writeAll(text, bytes);
			return;
		}
		const reason =
			room < fileRoom
				? `Saved outputs reached ${formatSize(spillBudget())}`
				: `Output exceeded ${formatSize(this.#maxBytes)}`;
		const data = typeof text === "string" ? Buffer.from(text, "utf8") : text;
		// Cut on a character boundary: step back over UTF-8 continuation bytes.
		let end = room;
		while (end > 0 && ((data[end] as number) & 0xc0) === 0x80) end--;
		this.#writeAll(data.subarray(0, end), end);
		this.#capped = true;
		const marker = `[${reason}; the rest was not saved]\n`;
		const line = this.#endsWithNewline ? marker : `\n${marker}`;
		this.#writeAll(line, Buffer.byteLength(line));
	}

	/** Closes the file; the path when it holds the output, undefined when writing failed. */
	close(): string | undefined {
		const fd = this.#fd;
		if (fd === undefined) return undefined;
		this.#fd = undefined;
		spillFileClosed(this.#tracked);
		try {
			closeSync(fd);
			return this.path;
		} catch (error) {
			reportSpillFailure(this.path, error);
			return undefined;
		}
	}

	#writeAll(data: string | Buffer, bytes: number): void {
		const fd = this.#fd;
		if (fd === undefined || bytes === 0) return;
		try {
			// A regular file takes the whole write unless something is wrong (a full disk).
			const written = typeof data === "string" ? writeSync(fd, data) : writeSync(fd, data);
			if (written !== bytes) throw new Error(`short write (${written} of ${bytes} bytes)`);
			this.#written += bytes;
			this.#endsWithNewline = typeof data === "string" ? data.endsWith("\n") : data[bytes - 1] === 0x0a;
		} catch (error) {
			// Give up on the file rather than keep a silently incomplete copy.
			reportSpillFailure(this.path, error);
			this.#fd = undefined;
			closeQuietly(fd);
			spillFileFailed(this.#tracked);
		}
	}
}

/** Opens a new file in `dir`, creating `dir` (0700) only when the first attempt finds it missing. */
function openInDirectory(dir: string, path: string): number {
	try {
		return openSync(path, "wx", 0o600);
	} catch (error) {
		const code = errorCode(error);
		if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
	}
	ensureDirectorySync(dir, { mode: 0o700 });
	return openSync(path, "wx", 0o600);
}

function closeQuietly(fd: number): void {
	try {
		closeSync(fd);
	} catch (error) {
		reportSpillFailure(`fd ${fd}`, error);
	}
}

function reportSpillFailure(path: string, error: unknown): void {
	const reason = error instanceof Error ? error.message : String(error);
	process.emitWarning(`Could not save the full command output to ${path}: ${reason}`, "AtomicShellWarning");
}
