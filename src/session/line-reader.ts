import type { SessionIo } from "./io.js";

const CHUNK_BYTES = 1024 * 1024;

export interface ReadLinesResult {
	/** Bytes read in total (the file size when reading started at 0). */
	end: number;
	/** Byte offset just after the last LF (where a torn tail starts). */
	completeEnd: number;
	/** The text after the last LF, when the file does not end with one. */
	tornTail?: string;
}

export interface ReadBounds {
	/** A line (LF excluded) longer than this stops the read with `LineTooLongError`. */
	maxLineBytes: number;
	/** Reading stops at this offset (the size when the file was opened): what is appended later is not read. */
	end: number;
}

/** Thrown by `readLines` when a line is longer than its bound; nothing past it was read. */
export class LineTooLongError extends Error {
	constructor(
		readonly start: number,
		readonly maxBytes: number,
	) {
		super(`A line starting at byte ${start} is longer than ${maxBytes} bytes`);
		this.name = "LineTooLongError";
	}
}

/**
 * Reads a file from `from` in 1 MiB chunks and calls `onLine` for every LF-terminated line, with
 * the line's start offset. Splits on the LF byte only and decodes UTF-8 per line (an LF byte never
 * occurs inside a multi-byte sequence, so a character split across chunks is reassembled intact);
 * one trailing CR is stripped. A line is held in memory until its LF, so its length is bounded.
 */
export function readLines(
	io: SessionIo,
	fd: number,
	from: number,
	onLine: (text: string, start: number) => void,
	bounds: ReadBounds,
): ReadLinesResult {
	const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
	let position = from;
	let lineStart = from;
	let pending: Buffer[] = [];
	let pendingBytes = 0;
	for (;;) {
		const wanted = Math.min(CHUNK_BYTES, bounds.end - position);
		if (wanted <= 0) break;
		const bytesRead = io.read(fd, buffer, 0, wanted, position);
		if (bytesRead === 0) break;
		const chunk = buffer.subarray(0, bytesRead);
		let cursor = 0;
		while (cursor < bytesRead) {
			const lineFeed = chunk.indexOf(10, cursor);
			const lineBytes = pendingBytes + (lineFeed === -1 ? bytesRead : lineFeed) - cursor;
			if (lineBytes > bounds.maxLineBytes) throw new LineTooLongError(lineStart, bounds.maxLineBytes);
			if (lineFeed === -1) {
				// The buffer is reused for the next chunk, so the partial line is copied out.
				pending.push(Buffer.from(chunk.subarray(cursor)));
				pendingBytes += bytesRead - cursor;
				break;
			}
			let text: string;
			if (pending.length > 0) {
				pending.push(chunk.subarray(cursor, lineFeed));
				text = Buffer.concat(pending).toString("utf8");
				pending = [];
				pendingBytes = 0;
			} else {
				text = chunk.toString("utf8", cursor, lineFeed);
			}
			onLine(stripCarriageReturn(text), lineStart);
			cursor = lineFeed + 1;
			lineStart = position + cursor;
		}
		position += bytesRead;
	}
	const result: ReadLinesResult = { end: position, completeEnd: lineStart };
	if (pending.length > 0) result.tornTail = stripCarriageReturn(Buffer.concat(pending).toString("utf8"));
	return result;
}

function stripCarriageReturn(text: string): string {
	return text.endsWith("\r") ? text.slice(0, -1) : text;
}
