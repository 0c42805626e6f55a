import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { DEFAULT_MAX_BYTES, truncateLine } from "./truncate.js";

/** Lets other callbacks run (not node:timers/promises, which start-up would load with this module). */
function yieldToEventLoop(): Promise<void> {
	return new Promise((resolve) => setImmediate(resolve));
}

/** Files larger than this are not searched. */
export const MAX_SEARCH_FILE_BYTES = 10 * 1024 * 1024;
/** A NUL byte in this many leading bytes marks a file as binary (git's and ripgrep's heuristic). */
const BINARY_SNIFF_BYTES = 8192;
const CHUNK_BYTES = 64 * 1024;
/** Longest stretch of synchronous reading before the event loop gets a turn. */
const SLICE_MS = 10;

export interface GrepSearchOptions {
	regex: RegExp;
	/** Lines shown before and after each match. */
	context: number;
	/** Matches to report; finding one more sets `matchLimitReached`. */
	limit: number;
	signal?: AbortSignal;
	/** Receives each output line as soon as it is taken. Must not throw. */
	onLine?(line: string): void;
}

/**
 * Collects grep output across files: `path:N: text` for matches, `path-N- text` for context lines,
 * `--` between groups that are not adjacent (only when context is asked for). Stops taking lines once
 * the match limit is passed or the output is well past the byte limit the result will be cut to.
 */
export class GrepSearch {
	readonly lines: string[] = [];
	matchCount = 0;
	matchLimitReached = false;
	linesTruncated = false;
	private outputBytes = 0;
	private readonly buffer = Buffer.allocUnsafe(CHUNK_BYTES);
	private sliceStart = performance.now();

	constructor(private readonly options: GrepSearchOptions) {}

	/** True once nothing more will be collected. */
	get done(): boolean {
		return this.matchLimitReached || this.outputBytes > DEFAULT_MAX_BYTES;
	}

	/**
	 * Searches one file, shown as `displayPath`. Binary, oversized and non-regular files are skipped.
	 * Reads are synchronous, in chunks: most files are one small chunk, and a promise round trip per
	 * open/stat/read/close made a search of thousands of files many times slower. The event loop
	 * still gets a turn every few milliseconds, which is also when an abort is noticed.
	 */
	async searchFile(absolutePath: string, displayPath: string): Promise<void> {
		await this.yieldIfBusy();
		// Non-blocking so that opening a FIFO returns at once (it is then skipped as not a file).
		const descriptor = openSync(absolutePath, constants.O_RDONLY | constants.O_NONBLOCK);
		try {
			const info = fstatSync(descriptor);
			if (!info.isFile() || info.size > MAX_SEARCH_FILE_BYTES) return;
			const scanner = new FileScanner(this, displayPath);
			const decoder = new StringDecoder("utf8");
			let pending = "";
			let first = true;
			for (;;) {
				const bytesRead = readSync(descriptor, this.buffer, 0, CHUNK_BYTES, null);
				if (bytesRead === 0) break;
				const chunk = this.buffer.subarray(0, bytesRead);
				if (first && chunk.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return;
				first = false;
				// What is pending holds no newline, so only the new text needs scanning (long lines stay linear).
				const scanFrom = pending.length;
				pending += decoder.write(chunk);
				let start = 0;
				for (let newline = pending.indexOf("\n", scanFrom); newline !== -1; newline = pending.indexOf("\n", start)) {
					if (!scanner.line(pending.slice(start, newline))) return;
					start = newline + 1;
				}
				pending = pending.slice(start);
				await this.yieldIfBusy();
			}
			pending += decoder.end();
			if (pending.length > 0) scanner.line(pending);
		} finally {
			closeSync(descriptor);
		}
	}

	private async yieldIfBusy(): Promise<void> {
		this.options.signal?.throwIfAborted();
		if (performance.now() - this.sliceStart < SLICE_MS) return;
		await yieldToEventLoop();
		this.sliceStart = performance.now();
		this.options.signal?.throwIfAborted();
	}

	/** Takes one output line, cutting it when too long. */
	emit(displayPath: string, number: number, text: string, isMatch: boolean): void {
		const cut = truncateLine(text);
		if (cut.wasTruncated) this.linesTruncated = true;
		this.push(isMatch ? `${displayPath}:${number}: ${cut.text}` : `${displayPath}-${number}- ${cut.text}`);
	}

	emitSeparator(): void {
		this.push("--");
	}

	get context(): number {
		return this.options.context;
	}

	/** Counts a match; false when it is one past the limit (it is then not shown). */
	acceptMatch(): boolean {
		if (this.matchCount >= this.options.limit) {
			this.matchLimitReached = true;
			return false;
		}
		this.matchCount++;
		return true;
	}

	matches(text: string): boolean {
		return this.options.regex.test(text);
	}

	/** Tracks the size of the joined output exactly, so stopping early always means it gets cut. */
	private push(line: string): void {
		this.outputBytes += Buffer.byteLength(line) + (this.lines.length > 0 ? 1 : 0);
		this.lines.push(line);
		this.options.onLine?.(line);
	}
}

/** Per-file line state: the lines held back as before-context and the after-context still owed. */
class FileScanner {
	private lineNumber = 0;
	private lastShown = 0;
	private afterLeft = 0;
	private readonly before: { number: number; text: string }[] = [];

	constructor(
		private readonly search: GrepSearch,
		private readonly displayPath: string,
	) {}

	/** Handles the next line of the file; false when the search should stop. */
	line(raw: string): boolean {
		const text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
		const number = ++this.lineNumber;
		const context = this.search.context;
		if (this.search.matches(text)) {
			if (!this.search.acceptMatch()) return false;
			for (const held of this.before) this.show(held.number, held.text, false);
			this.before.length = 0;
			this.show(number, text, true);
			this.afterLeft = context;
		} else if (this.afterLeft > 0) {
			this.show(number, text, false);
			this.afterLeft--;
		} else if (context > 0) {
			this.before.push({ number, text });
			if (this.before.length > context) this.before.shift();
		}
		return !this.search.done;
	}

	private show(number: number, text: string, isMatch: boolean): void {
		const startsGroup = this.lastShown === 0 || number !== this.lastShown + 1;
		if (this.search.context > 0 && startsGroup && this.search.lines.length > 0) {
			this.search.emitSeparator();
		}
		this.search.emit(this.displayPath, number, text, isMatch);
		this.lastShown = number;
	}
}
