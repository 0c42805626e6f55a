import type { FileHandle } from "node:fs/promises";

const CHUNK_BYTES = 256 * 1024;
const LINE_FEED = 0x0a;

export interface SelectionRequest {
	/** 0-based index of the first line wanted. */
	startIndex: number;
	/** Lines wanted from there; undefined: to the end of the file. */
	limit: number | undefined;
	/** Lines kept once this many are held the output is already past its line limit. */
	maxLines: number;
	/** Bytes kept: once the kept lines pass this the output is already past its byte limit. */
	maxBytes: number;
	signal?: AbortSignal;
}

export interface LineSelection {
	/** Lines in the file (a final LF ends the last line, it does not start another; an empty file has one). */
	totalLines: number;
	/**
	 * The first selected lines, without their LF: all of them when they fit the limits, else as many
	 * as show that they do not (the last one may be cut short, it is never shown).
	 */
	kept: string[];
	/** Whether `kept` holds the whole selection. */
	complete: boolean;
	/** Lines in the selection. */
	selectedLines: number;
	/** UTF-8 bytes of the selected lines joined by LF. */
	selectedBytes: number;
	/** UTF-8 bytes of the first selected line (0 when the selection is empty). */
	firstLineBytes: number;
}

/**
 * Reads a text file once, in chunks, and keeps only what a `read` with offset and limit can show:
 * memory stays bounded by the output limits whatever the size of the file or of its lines. Lines
 * are counted to the end, because the result says how many there are. A leading UTF-8 byte order
 * mark is skipped. Bytes are split on LF only; each kept line is decoded as UTF-8 on its own (an LF
 * byte never occurs inside a multi-byte character).
 */
export async function selectLines(handle: FileHandle, request: SelectionRequest): Promise<LineSelection> {
	const { startIndex, maxLines, maxBytes } = request;
	const endIndex = request.limit === undefined ? Number.POSITIVE_INFINITY : startIndex + request.limit;
	const kept: string[] = [];
	let keptBytes = 0;
	let keeping = true;
	let selectedLines = 0;
	let selectedBytes = 0;
	let firstLineBytes = 0;

	let lineIndex = 0;
	let lineBytes = 0;
	let parts: Buffer[] = [];
	let partBytes = 0;
	let newlines = 0;

	const inSelection = () => lineIndex >= startIndex && lineIndex < endIndex;
	const take = (bytes: Buffer) => {
		// Only the start of a line that is too long is held: enough to show that it is.
		const room = maxBytes + 1 - partBytes;
		if (room <= 0) return;
		const piece = bytes.length > room ? bytes.subarray(0, room) : bytes;
		parts.push(Buffer.from(piece));
		partBytes += piece.length;
	};
	const endLine = () => {
		if (inSelection()) {
			selectedBytes += lineBytes + (selectedLines > 0 ? 1 : 0);
			if (selectedLines === 0) firstLineBytes = lineBytes;
			selectedLines++;
			if (keeping) {
				kept.push(Buffer.concat(parts).toString("utf8"));
				keptBytes += lineBytes + (kept.length > 1 ? 1 : 0);
				if (kept.length > maxLines || keptBytes > maxBytes) keeping = false;
			}
		}
		parts = [];
		partBytes = 0;
		lineBytes = 0;
		lineIndex++;
	};

	const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
	let position = 0;
	let first = true;
	for (;;) {
		request.signal?.throwIfAborted();
		const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
		if (bytesRead === 0) break;
		position += bytesRead;
		let cursor = 0;
		if (first) {
			first = false;
			if (bytesRead >= 3 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf) cursor = 3;
		}
		while (cursor < bytesRead) {
			const lineFeed = buffer.indexOf(LINE_FEED, cursor);
			const end = lineFeed === -1 || lineFeed >= bytesRead ? bytesRead : lineFeed;
			if (keeping && inSelection()) take(buffer.subarray(cursor, end));
			lineBytes += end - cursor;
			if (end === bytesRead) break;
			newlines++;
			endLine();
			cursor = end + 1;
		}
	}
	// The text after the last LF is a line, unless it is empty and some LF ended the line before it.
	if (lineBytes > 0 || newlines === 0) endLine();
	return {
		totalLines: lineIndex,
		kept,
		complete: keeping,
		selectedLines,
		selectedBytes,
		firstLineBytes,
	};
}
