import { closeSync, constants, openSync, readSync } from "node:fs";
import { GREP_MAX_LINE_CHARS } from "../truncate.js";

/** Bytes read at a time: the file is searched as a stream, whatever its size. */
export const CHUNK_BYTES = 64 * 1024;
/** A line longer than this is searched in its first this many bytes only: memory stays bounded. */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;

/** What to look for. `needle`, when set, is in every matching line (required-literal.ts). */
export interface ScanPattern {
	/** Tested on each candidate line (decoded from UTF-8, without its line end). Not global. */
	regex: RegExp;
	/** The needle's UTF-8 bytes as a Latin-1 string, to find in the file's bytes read as Latin-1. */
	needle?: string;
	/** The needle case-insensitively (global, over the same Latin-1 text); replaces `needle`. */
	needleRegex?: RegExp;
	/** The length in bytes of what `needleRegex` matches (an ASCII literal's). */
	needleRegexLength?: number;
}

export interface ScanOptions {
	/** Lines shown before and after each match. */
	context: number;
	/** The file's scan stops after this many matches (the search needs no more of one file). */
	maxMatches: number;
}

/** One output line of a file: a match or a context line, its text cut to the longest line shown. */
export interface ScannedLine {
	number: number;
	text: string;
	match: boolean;
}

export interface FileScan {
	lines: ScannedLine[];
	/** Some line text was cut to GREP_MAX_LINE_CHARS. */
	cut: boolean;
	/** A NUL byte stopped the scan (a binary file, as ripgrep and git tell one): what follows was not searched. */
	binary: boolean;
	/** The part of a binary file that was not shown holds a match. */
	binaryMatched: boolean;
	/** A line over MAX_LINE_BYTES was searched in its first MAX_LINE_BYTES only. */
	longLine: boolean;
	/** The file could not be read: the system's error code (EACCES, EIO, ...). */
	unreadable?: string;
}

interface Held {
	number: number;
	text: string;
}

/**
 * Searches files in chunks of CHUNK_BYTES read into one reusable buffer, the way grep and ripgrep
 * do: the bytes are scanned for the needle (or for line ends) as Latin-1 text, which is as fast as
 * scanning memory, and only candidate lines are decoded from UTF-8 and tested with the regex. A
 * chunk with a NUL byte ends the scan of a file (ripgrep's rule for binary files); what came before
 * it stays. Reads are synchronous: this runs in a search worker.
 */
export class FileScanner {
	private buffer = Buffer.allocUnsafe(CHUNK_BYTES * 2);
	/** The needle's bytes, for the first pass over a file. */
	private readonly needleBytes: Buffer | undefined;

	constructor(
		private readonly pattern: ScanPattern,
		private readonly options: ScanOptions,
	) {
		this.needleBytes = pattern.needle === undefined ? undefined : Buffer.from(pattern.needle, "latin1");
	}

	/** Scans one regular file; throws the file system's error when it cannot be read. */
	scan(absolutePath: string): FileScan {
		// Non-blocking, so that a FIFO put in place of a file since the walk cannot hold the search.
		const descriptor = openSync(absolutePath, constants.O_RDONLY | constants.O_NONBLOCK);
		try {
			if (!this.mayMatch(descriptor)) {
				return { lines: [], cut: false, binary: false, binaryMatched: false, longLine: false };
			}
			return this.scanDescriptor(descriptor);
		} finally {
			closeSync(descriptor);
		}
	}

	/**
	 * The first pass over a file, when the pattern has a needle: reads it chunk by chunk looking
	 * only for the needle, which every match holds. False when the whole file lacks it (most files
	 * of a search): nothing in it can match, so its lines are neither counted nor decoded, and
	 * there is nothing to say about it (no match in a binary part, nothing left unsearched in a
	 * long line). True sends the file to the full scan, from its start.
	 */
	private mayMatch(descriptor: number): boolean {
		const needle = this.needleBytes;
		const needleRegex = this.pattern.needleRegex;
		const length = needle?.length ?? this.pattern.needleRegexLength;
		if (length === undefined || length === 0) return true;
		// A needle may straddle two chunks: the last length - 1 bytes of one start the next.
		const overlap = length - 1;
		let carry = 0;
		let position = 0;
		for (;;) {
			const read = readSync(descriptor, this.buffer, carry, CHUNK_BYTES, position);
			position += read;
			const end = carry + read;
			if (needle) {
				if (this.buffer.subarray(0, end).indexOf(needle) !== -1) return true;
			} else if (needleRegex) {
				needleRegex.lastIndex = 0;
				if (needleRegex.test(this.buffer.toString("latin1", 0, end))) return true;
			}
			if (read < CHUNK_BYTES) return false;
			carry = Math.min(overlap, end);
			this.buffer.copy(this.buffer, 0, end - carry, end);
		}
	}

	private scanDescriptor(descriptor: number): FileScan {
		const result: FileScan = { lines: [], cut: false, binary: false, binaryMatched: false, longLine: false };
		const state = new LineState(this.pattern, this.options, result);
		let carry = 0;
		let skippingLongLine = false;
		let position = 0;
		for (;;) {
			if (this.buffer.length < carry + CHUNK_BYTES) this.grow(carry + CHUNK_BYTES);
			const read = readSync(descriptor, this.buffer, carry, CHUNK_BYTES, position);
			position += read;
			const end = carry + read;
			// A short read of a regular file is its end.
			const atEnd = read < CHUNK_BYTES;
			if (read > 0 && this.buffer.subarray(carry, end).indexOf(0) !== -1) {
				result.binary = true;
				result.binaryMatched = state.anyMatchIn(this.buffer, 0, end);
				return result;
			}
			const complete = atEnd ? end : this.buffer.lastIndexOf(10, end - 1) + 1;
			if (skippingLongLine) {
				// The rest of a line already searched in part: drop it up to its end.
				const lineEnd = this.buffer.indexOf(10, 0);
				if (lineEnd === -1 || lineEnd >= end) {
					carry = 0;
					if (atEnd) return result;
					continue;
				}
				this.buffer.copy(this.buffer, 0, lineEnd + 1, end);
				skippingLongLine = false;
				carry = end - lineEnd - 1;
				state.skipLine();
				continue;
			}
			if (complete === 0 && !atEnd) {
				// No line end yet: keep reading, up to MAX_LINE_BYTES of one line.
				if (end < MAX_LINE_BYTES) {
					carry = end;
					continue;
				}
				result.longLine = true;
				state.scanRegion(this.buffer, end, true);
				skippingLongLine = true;
				carry = 0;
				continue;
			}
			if (complete > 0 && !state.scanRegion(this.buffer, complete, atEnd)) return result;
			if (atEnd) return result;
			carry = end - complete;
			if (carry > 0) this.buffer.copy(this.buffer, 0, complete, end);
		}
	}

	private grow(size: number): void {
		const larger = Buffer.allocUnsafe(Math.max(size, this.buffer.length * 2));
		this.buffer.copy(larger);
		this.buffer = larger;
	}
}

/** The line numbering, context and output of one file's scan, across its chunks. */
class LineState {
	/** The number of the first line of the region being scanned. */
	private base = 1;
	private lastShown = 0;
	private afterLeft = 0;
	private matches = 0;
	/** The last lines of the previous region that were not shown, for the next match's before-context. */
	private tail: Held[] = [];

	constructor(
		private readonly pattern: ScanPattern,
		private readonly options: ScanOptions,
		private readonly result: FileScan,
	) {}

	/** A long line's unsearched rest was dropped: the next region starts one line further. */
	skipLine(): void {
		this.base++;
		this.tail = [];
	}

	/**
	 * Scans the bytes [0, end) of `buffer`, whole lines (the last one may lack its line end when
	 * `last`). Returns false once the file needs no more scanning (the match cap).
	 */
	scanRegion(buffer: Buffer, end: number, last: boolean): boolean {
		const text = buffer.toString("latin1", 0, end);
		const context = this.options.context;
		let position = 0;
		/** Line numbers are counted up to `counted` (the line starting there is number `countedLine`). */
		let counted = 0;
		let countedLine = this.base;
		const numberAt = (lineStart: number): number => {
			for (
				let newline = text.indexOf("\n", counted);
				newline !== -1 && newline < lineStart;
				newline = text.indexOf("\n", counted)
			) {
				countedLine++;
				counted = newline + 1;
			}
			counted = Math.max(counted, lineStart);
			return countedLine;
		};
		while (position < end) {
			let lineStart: number;
			if (this.afterLeft > 0 || !this.hasNeedle()) lineStart = position;
			else {
				const found = this.nextNeedle(text, position);
				if (found === -1) break;
				lineStart = text.lastIndexOf("\n", found - 1) + 1;
			}
			let lineEnd = text.indexOf("\n", lineStart);
			if (lineEnd === -1) lineEnd = end;
			const number = numberAt(lineStart);
			const line = decodeLine(buffer, lineStart, lineEnd);
			if (this.pattern.regex.test(line)) {
				if (this.matches >= this.options.maxMatches) return false;
				this.matches++;
				if (context > 0) this.showBefore(text, buffer, lineStart, number);
				this.show(number, line, true);
				this.afterLeft = context;
			} else if (this.afterLeft > 0) {
				this.show(number, line, false);
				this.afterLeft--;
			}
			position = lineEnd + 1;
		}
		if (!last) {
			numberAt(end);
			if (context > 0) this.keepTail(text, buffer, end, countedLine);
			this.base = countedLine;
		}
		return true;
	}

	/** Whether any line of the bytes [start, end) matches (the part of a binary file not searched). */
	anyMatchIn(buffer: Buffer, start: number, end: number): boolean {
		const text = buffer.toString("latin1", start, end);
		if (this.hasNeedle() && this.nextNeedle(text, 0) === -1) return false;
		const lines = buffer.toString("utf8", start, end).split("\n");
		return lines.some((line) => this.pattern.regex.test(line.endsWith("\r") ? line.slice(0, -1) : line));
	}

	private hasNeedle(): boolean {
		return this.pattern.needle !== undefined || this.pattern.needleRegex !== undefined;
	}

	private nextNeedle(text: string, from: number): number {
		const needleRegex = this.pattern.needleRegex;
		if (needleRegex) {
			needleRegex.lastIndex = from;
			return needleRegex.exec(text)?.index ?? -1;
		}
		return text.indexOf(this.pattern.needle ?? "", from);
	}

	/** Shows up to `context` lines before the match at `lineStart` that were not shown yet. */
	private showBefore(text: string, buffer: Buffer, lineStart: number, number: number): void {
		const context = this.options.context;
		const held: Held[] = [];
		let end = lineStart - 1;
		let lineNumber = number - 1;
		while (held.length < context && end >= 0 && lineNumber > this.lastShown) {
			const start = text.lastIndexOf("\n", end - 1) + 1;
			held.unshift({ number: lineNumber, text: decodeLine(buffer, start, end) });
			lineNumber--;
			end = start - 1;
		}
		if (held.length < context && end < 0) {
			// The region's first lines were not enough: the previous region's last ones come first.
			const missing = context - held.length;
			held.unshift(...this.tail.slice(-missing).filter((line) => line.number > this.lastShown));
		}
		for (const line of held) if (line.number > this.lastShown) this.show(line.number, line.text, false);
	}

	/** Keeps the last `context` lines of the region for a match at the start of the next. */
	private keepTail(text: string, buffer: Buffer, end: number, nextNumber: number): void {
		const context = this.options.context;
		const tail: Held[] = [];
		let lineEnd = end - 1;
		let number = nextNumber - 1;
		while (tail.length < context && lineEnd >= 0 && number > this.lastShown) {
			const start = text.lastIndexOf("\n", lineEnd - 1) + 1;
			tail.unshift({ number, text: decodeLine(buffer, start, lineEnd) });
			number--;
			lineEnd = start - 1;
		}
		this.tail = tail;
	}

	private show(number: number, line: string, match: boolean): void {
		const cut = line.length > GREP_MAX_LINE_CHARS;
		if (cut) this.result.cut = true;
		this.result.lines.push({
			number,
			text: cut ? `${line.slice(0, GREP_MAX_LINE_CHARS)}... [truncated]` : line,
			match,
		});
		this.lastShown = number;
	}
}

/** The line [start, end) decoded from UTF-8, without a final CR. */
function decodeLine(buffer: Buffer, start: number, end: number): string {
	const stop = end > start && buffer[end - 1] === 13 ? end - 1 : end;
	return buffer.toString("utf8", start, stop);
}
