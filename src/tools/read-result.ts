import type { AgentToolResult } from "../agent/types.js";
import { DEFAULT_MAX_BYTES, formatSize, type TruncationResult } from "./truncate.js";

export interface ReadToolDetails {
	truncation?: TruncationResult;
}

/** The lines a read selected, after truncation: what both the disk and the editor-backed read return. */
export interface SelectedText {
	displayPath: string;
	absolutePath: string;
	/** 0-based index of the first selected line. */
	startIndex: number;
	/** 0-based index after the last selected line. */
	endIndex: number;
	totalLines: number;
	truncation: TruncationResult;
	/** UTF-8 bytes of the first selected line. */
	firstLineBytes: number;
}

/** The path as a shell word for the hint; quoted (and made absolute) only when it needs it. */
function shellPath(displayPath: string, absolutePath: string): string {
	if (/^[\w./~+-]+$/.test(displayPath)) return displayPath;
	return `'${absolutePath.replaceAll("'", "'\\''")}'`;
}

/** The read tool's answer for selected lines, with the notice that says how to read on. */
export function readResult(selected: SelectedText): AgentToolResult<ReadToolDetails> {
	const { truncation, totalLines, endIndex } = selected;
	const startLine = selected.startIndex + 1;
	if (truncation.firstLineExceedsLimit) {
		const lineSize = formatSize(selected.firstLineBytes);
		const path = shellPath(selected.displayPath, selected.absolutePath);
		const command = `sed -n '${startLine}p' ${path} | head -c ${DEFAULT_MAX_BYTES}`;
		const text = `[Line ${startLine} is ${lineSize}, over the ${formatSize(DEFAULT_MAX_BYTES)} limit. Use bash: ${command}]`;
		return { content: [{ type: "text", text }], details: { truncation } };
	}
	if (truncation.truncated) {
		const endLine = startLine + truncation.outputLines - 1;
		const limitNote = truncation.truncatedBy === "bytes" ? ` (${formatSize(DEFAULT_MAX_BYTES)} limit)` : "";
		const notice = `[Showing lines ${startLine}-${endLine} of ${totalLines}${limitNote}. Use offset=${endLine + 1} to continue.]`;
		return { content: [{ type: "text", text: `${truncation.content}\n\n${notice}` }], details: { truncation } };
	}
	if (endIndex < totalLines) {
		const notice = `[${totalLines - endIndex} more lines in file. Use offset=${endIndex + 1} to continue.]`;
		return { content: [{ type: "text", text: `${truncation.content}\n\n${notice}` }], details: {} };
	}
	// Providers reject empty text blocks; say what is there instead.
	const content = truncation.content === "" ? (totalLines <= 1 ? "(empty file)" : "(empty lines)") : truncation.content;
	return { content: [{ type: "text", text: content }], details: {} };
}
