import { isAscii, isUtf8 } from "node:buffer";
import { StringDecoder } from "node:string_decoder";
import {
	countNewlines,
	DEFAULT_MAX_BYTES,
	DEFAULT_MAX_LINES,
	type TruncationResult,
	truncateTail,
} from "./truncate.js";

/* biome-ignore-start lint/suspicious/noControlCharactersInRegex: these patterns exist to match control characters */
// Terminal escape sequences: CSI, OSC (ended by BEL or ST), DCS/SOS/PM/APC strings, and short escapes.
const ESCAPE_SEQUENCE =
	/\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b\n]*(?:\x07|\x1b\\)|[PX^_][^\x1b\n]*\x1b\\|[ -/]*[0-~])/g;
// An escape sequence cut off by the end of a chunk (it always starts at the chunk's last ESC).
const INCOMPLETE_ESCAPE = /^\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b\n]*|[PX^_][^\x1b\n]*|[ -/]*)$/;
// Any character the slow path has to deal with: ESC, \r and the other C0/C1 controls.
const NEEDS_SANITISING = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
const CONTROL_CHARACTER = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g;
/* biome-ignore-end lint/suspicious/noControlCharactersInRegex: end of the control-character patterns */

/** Longest cut-off escape sequence held back for the next chunk; longer ones are treated as text. */
const MAX_HELD_ESCAPE = 4096;
/** Small chunks are merged so the rolling tail never holds more than a few dozen pieces. */
const MERGE_BELOW_CHARS = 8192;
/** The rolling tail keeps this many times `maxBytes` characters: always more than truncation shows. */
const TAIL_FACTOR = 2;

/**
 * Makes command output safe to show and to put in JSON: strips terminal escape sequences, removes
 * every `\r` and replaces other control characters (except `\n` and `\t`) with U+FFFD.
 */
export function sanitizeShellText(text: string): string {
	if (!NEEDS_SANITISING.test(text)) return text;
	return text.replace(ESCAPE_SEQUENCE, "").replaceAll("\r", "").replace(CONTROL_CHARACTER, "\uFFFD");
}

/**
 * Turns one output channel's raw chunks into sanitised text. A UTF-8 character or an escape sequence
 * split across chunks comes out whole (or, for a sequence, not at all).
 */
export class ShellTextDecoder {
	readonly #decoder = new StringDecoder("utf8");
	#heldEscape = "";
	/** The StringDecoder holds no part of a character: the last chunk it was given ended in ASCII. */
	#atBoundary = true;
	#verbatim = false;

	/**
	 * Whether the text the last write returned is, encoded as UTF-8, exactly the chunk it was given
	 * (whole valid characters, nothing sanitised, nothing held back): the chunk can stand for it.
	 */
	get verbatim(): boolean {
		return this.#verbatim;
	}

	/**
	 * `asciiControls`: whether the chunk holds ASCII control bytes other than LF and TAB, when the
	 * caller has looked (scanOutputBytes); an ASCII chunk without any needs no other check.
	 */
	write(chunk: Buffer, asciiControls = true): string {
		this.#verbatim = false;
		let text: string;
		const encoding = this.#atBoundary && !this.#heldEscape ? wholeCharacters(chunk) : undefined;
		if (encoding) {
			// Nothing pending and no character cut off: decoded at once, the StringDecoder stays empty.
			text = chunk.toString(encoding);
			if ((encoding === "latin1" && !asciiControls) || !NEEDS_SANITISING.test(text)) {
				this.#verbatim = true;
				return text;
			}
		} else {
			text = this.#heldEscape + this.#decoder.write(chunk);
			this.#heldEscape = "";
			if (chunk.length > 0) this.#atBoundary = (chunk[chunk.length - 1] as number) < 0x80;
			if (!NEEDS_SANITISING.test(text)) return text;
		}
		const lastEscape = text.lastIndexOf("\x1b");
		if (
			lastEscape >= 0 &&
			text.length - lastEscape <= MAX_HELD_ESCAPE &&
			INCOMPLETE_ESCAPE.test(text.slice(lastEscape))
		) {
			this.#heldEscape = text.slice(lastEscape);
			return sanitizeShellText(text.slice(0, lastEscape));
		}
		return sanitizeShellText(text);
	}

	/** Whatever is left when the channel ends (an incomplete character becomes U+FFFD). */
	end(): string {
		const text = this.#heldEscape + this.#decoder.end();
		this.#heldEscape = "";
		this.#atBoundary = true;
		return sanitizeShellText(text);
	}
}

/** How to decode `chunk` when it holds whole, valid UTF-8 characters only (ASCII: as latin1, the fastest). */
function wholeCharacters(chunk: Buffer): "latin1" | "utf8" | undefined {
	if (isAscii(chunk)) return "latin1";
	return isUtf8(chunk) ? "utf8" : undefined;
}

export interface OutputLimits {
	maxLines: number;
	maxBytes: number;
}

export function outputLimits(limits: { maxLines?: number; maxBytes?: number }): OutputLimits {
	return { maxLines: limits.maxLines ?? DEFAULT_MAX_LINES, maxBytes: limits.maxBytes ?? DEFAULT_MAX_BYTES };
}

/**
 * The end of a growing output, in bounded memory. It keeps more than tail truncation can show, so
 * truncating the kept text gives the same result as truncating the whole output; only the totals
 * are tracked separately.
 */
export class RollingTail {
	readonly #limits: OutputLimits;
	readonly #keepChars: number;
	readonly #chunks: string[] = [];
	/** How many `\n` each kept chunk holds. */
	readonly #chunkNewlines: number[] = [];
	#keptChars = 0;
	#keptNewlines = 0;
	#droppedNewlines = 0;
	#dropped = false;
	#totalBytes = 0;

	constructor(limits: OutputLimits) {
		this.#limits = limits;
		this.#keepChars = TAIL_FACTOR * Math.max(limits.maxBytes, 1);
	}

	/** UTF-8 bytes of everything pushed so far. */
	get totalBytes(): number {
		return this.#totalBytes;
	}

	/**
	 * Adds text. `bytes` (its UTF-8 length) and `newlines` (how many `\n` it holds) may be passed
	 * when the caller already knows them, so that no text is scanned twice.
	 */
	push(text: string, bytes: number = Buffer.byteLength(text), newlines: number = countNewlines(text)): void {
		if (!text) return;
		this.#totalBytes += bytes;
		this.#keptChars += text.length;
		this.#keptNewlines += newlines;
		const lastIndex = this.#chunks.length - 1;
		const last = this.#chunks[lastIndex];
		if (last !== undefined && last.length < MERGE_BELOW_CHARS) {
			this.#chunks[lastIndex] = last + text;
			this.#chunkNewlines[lastIndex] = (this.#chunkNewlines[lastIndex] ?? 0) + newlines;
		} else {
			this.#chunks.push(text);
			this.#chunkNewlines.push(newlines);
		}
		// Drop whole pieces from the front while what stays is still at least the amount to keep.
		let first = this.#chunks[0];
		while (this.#chunks.length > 1 && first !== undefined && this.#keptChars - first.length >= this.#keepChars) {
			const firstNewlines = this.#chunkNewlines[0] ?? 0;
			this.#chunks.shift();
			this.#chunkNewlines.shift();
			this.#keptChars -= first.length;
			this.#keptNewlines -= firstNewlines;
			this.#droppedNewlines += firstNewlines;
			this.#dropped = true;
			first = this.#chunks[0];
		}
	}

	/** The kept text: all of the output until it grows past the kept amount. */
	text(): string {
		return this.#chunks.join("");
	}

	/** Tail truncation of the whole output so far, with totals for the whole output (0 lines when empty). */
	truncate(): TruncationResult {
		const text = this.text();
		const result = truncateTail(text, this.#limits, this.#keptNewlines);
		if (!text) return { ...result, totalLines: 0, outputLines: 0 };
		if (!this.#dropped) return result;
		return { ...result, totalLines: result.totalLines + this.#droppedNewlines, totalBytes: this.#totalBytes };
	}
}
