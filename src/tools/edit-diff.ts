import { FILE_HEADERS_ONLY, formatPatch, type StructuredPatch, structuredPatch } from "diff";

/** Unchanged lines shown around each change. */
const DIFF_CONTEXT_LINES = 3;

export interface EditDiff {
	/** Unified diff of the LF-normalised texts, with `---`/`+++` headers naming the path. */
	diff: string;
	/** 1-based line in the new text where the first change is (for a pure deletion: the line after it). */
	firstChangedLine: number;
}

function countLines(text: string): number {
	if (text === "") return 0;
	const newlines = text.split("\n").length - 1;
	return text.endsWith("\n") ? newlines : newlines + 1;
}

function firstChangedLineOf(patch: StructuredPatch, newText: string): number {
	const [hunk] = patch.hunks;
	if (hunk === undefined) return 1;
	let line = hunk.newStart;
	for (const row of hunk.lines) {
		if (row.startsWith("+") || row.startsWith("-")) break;
		if (row.startsWith(" ")) line++;
	}
	// A deletion at the very end points past the last line; point at the last line instead.
	return Math.max(1, Math.min(line, countLines(newText)));
}

export function buildEditDiff(displayPath: string, oldText: string, newText: string): EditDiff {
	const patch = structuredPatch(displayPath, displayPath, oldText, newText, undefined, undefined, {
		context: DIFF_CONTEXT_LINES,
	});
	return { diff: formatPatch(patch, FILE_HEADERS_ONLY), firstChangedLine: firstChangedLineOf(patch, newText) };
}
