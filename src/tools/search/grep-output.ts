import { DEFAULT_MAX_BYTES } from "../truncate.js";
import type { FileScan } from "./file-scan.js";

/** Binary and unreadable files named in a result; the rest are counted. */
const NAMED_BINARY_FILES = 5;

/**
 * grep's output across files, in walk order: `path:N: text` for matches, `path-N- text` for context
 * lines, `--` before each group of lines that does not follow the previous one (only when context
 * is asked for). Stops taking lines once the match limit is passed or the output is past the byte
 * limit the result will be cut to.
 */
export class GrepOutput {
	matchCount = 0;
	matchLimitReached = false;
	linesTruncated = false;
	/** Binary files whose unshown part holds a match: how many, and the first few. */
	binaryMatchCount = 0;
	readonly binaryMatches: string[] = [];
	/** Files that could not be read, with the reason: how many, and the first few. */
	unreadableCount = 0;
	readonly unreadable: string[] = [];
	/** A long line was searched in part. */
	longLines = false;
	private lineCount = 0;
	private outputBytes = 0;

	constructor(
		private readonly limit: number,
		private readonly context: number,
		private readonly emit: (line: string) => void,
	) {}

	/** True once nothing more will be taken. */
	get done(): boolean {
		return this.matchLimitReached || this.outputBytes > DEFAULT_MAX_BYTES;
	}

	/** Matches a file may still add (one past the limit tells that the limit was reached). */
	get matchesWanted(): number {
		return this.limit - this.matchCount + 1;
	}

	/** Takes the lines of the next file in walk order, shown as `displayPath`. */
	add(displayPath: string, scan: FileScan): void {
		if (scan.cut) this.linesTruncated = true;
		if (scan.longLine) this.longLines = true;
		if (scan.unreadable) {
			this.unreadableCount++;
			if (this.unreadable.length < NAMED_BINARY_FILES) this.unreadable.push(`${displayPath} (${scan.unreadable})`);
		}
		if (scan.binaryMatched) {
			this.binaryMatchCount++;
			if (this.binaryMatches.length < NAMED_BINARY_FILES) this.binaryMatches.push(displayPath);
		}
		let lastShown = 0;
		for (const line of scan.lines) {
			if (this.done) return;
			if (line.match) {
				if (this.matchCount >= this.limit) {
					this.matchLimitReached = true;
					return;
				}
				this.matchCount++;
			}
			if (this.context > 0 && this.lineCount > 0 && (lastShown === 0 || line.number !== lastShown + 1)) this.push("--");
			this.push(
				line.match ? `${displayPath}:${line.number}: ${line.text}` : `${displayPath}-${line.number}- ${line.text}`,
			);
			lastShown = line.number;
		}
	}

	/** Tracks the size of the joined output exactly, so stopping early always means it gets cut. */
	private push(line: string): void {
		this.outputBytes += Buffer.byteLength(line) + (this.lineCount > 0 ? 1 : 0);
		this.lineCount++;
		this.emit(line);
	}
}
