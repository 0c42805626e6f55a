/** Output limits shared by the tools: whichever is hit first applies. */
export const DEFAULT_MAX_LINES = 2000;
export const DEFAULT_MAX_BYTES = 50 * 1024;
/** Longest line grep shows before cutting it. */
export const GREP_MAX_LINE_CHARS = 500;

export interface TruncationLimits {
	maxLines?: number;
	maxBytes?: number;
}

export interface TruncationResult {
	content: string;
	truncated: boolean;
	truncatedBy: "lines" | "bytes" | null;
	totalLines: number;
	totalBytes: number;
	outputLines: number;
	outputBytes: number;
	/** truncateHead: the first line alone is over the byte limit, so nothing could be shown. */
	firstLineExceedsLimit: boolean;
	/** truncateTail: the kept text starts in the middle of a line that alone was over the byte limit. */
	lastLinePartial: boolean;
	maxLines: number;
	maxBytes: number;
}

function splitLines(text: string): string[] {
	const lines = text.split("\n");
	// A trailing newline ends the last line; it does not start another.
	if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
	return lines;
}

function byteLength(text: string): number {
	return Buffer.byteLength(text, "utf8");
}

/** Keeps the first lines that fit both limits (for reading files from the top). */
export function truncateHead(text: string, limits: TruncationLimits = {}): TruncationResult {
	const maxLines = limits.maxLines ?? DEFAULT_MAX_LINES;
	const maxBytes = limits.maxBytes ?? DEFAULT_MAX_BYTES;
	const lines = splitLines(text);
	const totalBytes = byteLength(text);
	const base = { totalLines: lines.length, totalBytes, maxLines, maxBytes, lastLinePartial: false };
	if (lines.length <= maxLines && totalBytes <= maxBytes) {
		return {
			...base,
			content: text,
			truncated: false,
			truncatedBy: null,
			outputLines: lines.length,
			outputBytes: totalBytes,
			firstLineExceedsLimit: false,
		};
	}
	const first = lines[0] ?? "";
	if (byteLength(first) > maxBytes) {
		return {
			...base,
			content: "",
			truncated: true,
			truncatedBy: "bytes",
			outputLines: 0,
			outputBytes: 0,
			firstLineExceedsLimit: true,
		};
	}
	const kept: string[] = [];
	let bytes = 0;
	let truncatedBy: "lines" | "bytes" = "lines";
	for (const line of lines) {
		if (kept.length >= maxLines) {
			truncatedBy = "lines";
			break;
		}
		const cost = byteLength(line) + (kept.length > 0 ? 1 : 0);
		if (bytes + cost > maxBytes) {
			truncatedBy = "bytes";
			break;
		}
		kept.push(line);
		bytes += cost;
	}
	return {
		...base,
		content: kept.join("\n"),
		truncated: true,
		truncatedBy,
		outputLines: kept.length,
		outputBytes: bytes,
		firstLineExceedsLimit: false,
	};
}

/** How many times `\n` occurs in `text`. */
export function countNewlines(text: string): number {
	let count = 0;
	for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) count++;
	return count;
}

/**
 * Keeps the last lines that fit both limits (for command output, where the end matters). It walks
 * back from the end and looks at no more lines than it keeps, so its cost does not grow with the
 * number of lines. `newlines` is the number of `\n` in `text` when the caller already knows it.
 */
export function truncateTail(
	text: string,
	limits: TruncationLimits = {},
	newlines: number = countNewlines(text),
): TruncationResult {
	const maxLines = limits.maxLines ?? DEFAULT_MAX_LINES;
	const maxBytes = limits.maxBytes ?? DEFAULT_MAX_BYTES;
	// A trailing newline ends the last line; it does not start another.
	const endsWithNewline = newlines > 0 && text.endsWith("\n");
	const totalLines = endsWithNewline ? newlines : newlines + 1;
	const totalBytes = byteLength(text);
	const base = { totalLines, totalBytes, maxLines, maxBytes, firstLineExceedsLimit: false };
	if (totalLines <= maxLines && totalBytes <= maxBytes) {
		return {
			...base,
			content: text,
			truncated: false,
			truncatedBy: null,
			outputLines: totalLines,
			outputBytes: totalBytes,
			lastLinePartial: false,
		};
	}
	// Pure ASCII (the usual case): a line's byte length is its length, no slice needed.
	const ascii = totalBytes === text.length;
	const contentEnd = endsWithNewline ? text.length - 1 : text.length;
	let contentStart = contentEnd;
	let lineEnd = contentEnd;
	let outputLines = 0;
	let bytes = 0;
	let truncatedBy: "lines" | "bytes" = "lines";
	let partialLine: string | undefined;
	for (let line = 0; line < totalLines; line++) {
		if (outputLines >= maxLines) {
			truncatedBy = "lines";
			break;
		}
		const lineStart = line === totalLines - 1 ? 0 : text.lastIndexOf("\n", lineEnd - 1) + 1;
		const lineBytes = ascii ? lineEnd - lineStart : byteLength(text.slice(lineStart, lineEnd));
		const cost = lineBytes + (outputLines > 0 ? 1 : 0);
		if (bytes + cost > maxBytes) {
			truncatedBy = "bytes";
			if (outputLines === 0) {
				// Even the last line is too long: keep its end.
				partialLine = tailBytes(text.slice(lineStart, lineEnd), maxBytes);
				outputLines = 1;
				bytes = byteLength(partialLine);
			}
			break;
		}
		contentStart = lineStart;
		outputLines++;
		bytes += cost;
		lineEnd = lineStart - 1;
	}
	return {
		...base,
		content: partialLine ?? text.slice(contentStart, contentEnd),
		truncated: true,
		truncatedBy,
		outputLines,
		outputBytes: bytes,
		lastLinePartial: partialLine !== undefined,
	};
}

/** The longest suffix of `text` within `maxBytes` UTF-8 bytes, never splitting a character. */
function tailBytes(text: string, maxBytes: number): string {
	const buffer = Buffer.from(text, "utf8");
	if (buffer.length <= maxBytes) return text;
	let start = buffer.length - maxBytes;
	// Skip UTF-8 continuation bytes so the result starts on a character boundary.
	while (start < buffer.length && ((buffer[start] as number) & 0xc0) === 0x80) start++;
	return buffer.subarray(start).toString("utf8");
}

/** Cuts a line to `maxChars`, marking the cut. */
export function truncateLine(
	line: string,
	maxChars: number = GREP_MAX_LINE_CHARS,
): { text: string; wasTruncated: boolean } {
	if (line.length <= maxChars) return { text: line, wasTruncated: false };
	return { text: `${line.slice(0, maxChars)}... [truncated]`, wasTruncated: true };
}

export function formatSize(bytes: number): string {
	if (bytes < 1024) return `${bytes}B`;
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
	return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}
