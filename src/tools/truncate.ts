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

/** Keeps the last lines that fit both limits (for command output, where the end matters). */
export function truncateTail(text: string, limits: TruncationLimits = {}): TruncationResult {
	const maxLines = limits.maxLines ?? DEFAULT_MAX_LINES;
	const maxBytes = limits.maxBytes ?? DEFAULT_MAX_BYTES;
	const lines = splitLines(text);
	const totalBytes = byteLength(text);
	const base = { totalLines: lines.length, totalBytes, maxLines, maxBytes, firstLineExceedsLimit: false };
	if (lines.length <= maxLines && totalBytes <= maxBytes) {
		return {
			...base,
			content: text,
			truncated: false,
			truncatedBy: null,
			outputLines: lines.length,
			outputBytes: totalBytes,
			lastLinePartial: false,
		};
	}
	const kept: string[] = [];
	let bytes = 0;
	let truncatedBy: "lines" | "bytes" = "lines";
	let lastLinePartial = false;
	for (let index = lines.length - 1; index >= 0; index--) {
		if (kept.length >= maxLines) {
			truncatedBy = "lines";
			break;
		}
		const line = lines[index] as string;
		const cost = byteLength(line) + (kept.length > 0 ? 1 : 0);
		if (bytes + cost > maxBytes) {
			truncatedBy = "bytes";
			if (kept.length === 0) {
				// Even the last line is too long: keep its end.
				const tail = tailBytes(line, maxBytes);
				kept.push(tail);
				bytes = byteLength(tail);
				lastLinePartial = true;
			}
			break;
		}
		kept.push(line);
		bytes += cost;
	}
	kept.reverse();
	return {
		...base,
		content: kept.join("\n"),
		truncated: true,
		truncatedBy,
		outputLines: kept.length,
		outputBytes: bytes,
		lastLinePartial,
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
