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

/**
 * Reads a file from `from` in 1 MiB chunks and calls `onLine` for every LF-terminated line, with
 * the line's start offset. Splits on the LF byte only and decodes UTF-8 per line (an LF byte never
 * occurs inside a multi-byte sequence, so a character split across chunks is reassembled intact);
 * one trailing CR is stripped.
 */
export function readLines(
	io: SessionIo,
	fd: number,
	from: number,
	onLine: (text: string, start: number) => void,
): ReadLinesResult {
	const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
	let position = from;
	let lineStart = from;
	let pending: Buffer[] = [];
	for (;;) {
		const bytesRead = io.read(fd, buffer, 0, CHUNK_BYTES, position);
		if (bytesRead === 0) break;
		const chunk = buffer.subarray(0, bytesRead);
		let cursor = 0;
		while (cursor < bytesRead) {
			const lineFeed = chunk.indexOf(10, cursor);
			if (lineFeed === -1) {
				// The buffer is reused for the next chunk, so the partial line is copied out.
				pending.push(Buffer.from(chunk.subarray(cursor)));
				break;
			}
			let text: string;
			if (pending.length > 0) {
				pending.push(chunk.subarray(cursor, lineFeed));
				text = Buffer.concat(pending).toString("utf8");
				pending = [];
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
