/** An inclusive range of 1-based line numbers. */
export interface LineRange {
	start: number;
	end: number;
}

/** The compactable region as lines, with what the planner and reconstruction need to know about them. */
export interface NumberedRegion {
	text: string;
	/** `text.split("\n")`: blank lines are real lines. */
	lines: readonly string[];
	/** 1-based numbers of lines that start a transcript section. */
	headerLines: readonly number[];
	/** 1-based line number -> N of each `(filtered N lines)` line left by an earlier compaction. */
	priorMarkers: ReadonlyMap<number, number>;
	/** 1-based numbers of lines inside `<keepContext>` spans, ascending. */
	protectedLines: readonly number[];
	/** The same lines as maximal inclusive ranges. */
	protectedRanges: readonly LineRange[];
	/** ceil(characters / 4). */
	tokenEstimate: number;
}

const HEADER = /^\[(User|Assistant|Assistant thinking|Assistant tool calls|Tool result)\]: /;
const TOOL_RESULT_HEADER = "[Tool result]: ";
const PRIOR_MARKER = /^\(filtered (\d+) lines\)$/;
const OPENER = "<keepcontext>";
const CLOSER = "</keepcontext>";

export function estimateTextTokens(text: string): number {
	return Math.ceil(text.length / 4);
}

export function createNumberedRegion(text: string): NumberedRegion {
	const lines = text.split("\n");
	const headerLines: number[] = [];
	const priorMarkers = new Map<number, number>();
	lines.forEach((line, index) => {
		if (HEADER.test(line)) headerLines.push(index + 1);
		const marker = PRIOR_MARKER.exec(line);
		if (marker) priorMarkers.set(index + 1, Number(marker[1]));
	});
	const protectedLines = findProtectedLines(lines);
	return {
		text,
		lines,
		headerLines,
		priorMarkers,
		protectedLines,
		protectedRanges: toRanges(protectedLines),
		tokenEstimate: estimateTextTokens(text),
	};
}

/**
 * `<keepContext>` ... `</keepContext>` spans (§5.5). A tag counts only when it is the whole line,
 * apart from a leading role header and surrounding whitespace, so mentions in prose do not.
 * Spans never cross a section header; an unclosed span runs to the end of its section. Tags in
 * tool output are ignored: a file or command output must not be able to pin itself.
 */
function findProtectedLines(lines: readonly string[]): number[] {
	const protectedLines: number[] = [];
	let openedAt: number | undefined;
	let inToolResult = false;
	const close = (lastLine: number) => {
		if (openedAt === undefined) return;
		for (let line = openedAt; line <= lastLine; line++) protectedLines.push(line);
		openedAt = undefined;
	};
	lines.forEach((line, index) => {
		const number = index + 1;
		const header = HEADER.exec(line);
		let content = line;
		if (header) {
			close(number - 1);
			inToolResult = header[0] === TOOL_RESULT_HEADER;
			content = line.slice(header[0].length);
		}
		if (inToolResult) return;
		const tag = content.trim().toLowerCase();
		// A second opener inside a span is part of the span; a closer with no span is plain text.
		if (tag === OPENER && openedAt === undefined) openedAt = number;
		else if (tag === CLOSER && openedAt !== undefined) close(number);
	});
	close(lines.length);
	return protectedLines;
}

/** Maximal inclusive ranges of ascending line numbers. */
export function toRanges(sortedLines: readonly number[]): LineRange[] {
	const ranges: LineRange[] = [];
	for (const line of sortedLines) {
		const last = ranges.at(-1);
		if (last && line === last.end + 1) last.end = line;
		else ranges.push({ start: line, end: line });
	}
	return ranges;
}

/** The planner's view: `<n>→<line>` per line, 1-based. */
export function numberRegionLines(region: Pick<NumberedRegion, "lines">): string {
	return region.lines.map((line, index) => `${index + 1}\u2192${line}`).join("\n");
}

/**
 * The region without its first `offset` lines, renumbered from 1. Protected lines, headers and
 * prior markers are shifted rather than recomputed, so a span whose opener was cut off stays
 * protected.
 */
export function withoutHead(region: NumberedRegion, offset: number): NumberedRegion {
	const lines = region.lines.slice(offset);
	const text = lines.join("\n");
	const shift = (numbers: readonly number[]) => numbers.filter((line) => line > offset).map((line) => line - offset);
	const protectedLines = shift(region.protectedLines);
	const priorMarkers = new Map<number, number>();
	for (const [line, count] of region.priorMarkers) if (line > offset) priorMarkers.set(line - offset, count);
	return {
		text,
		lines,
		headerLines: shift(region.headerLines),
		priorMarkers,
		protectedLines,
		protectedRanges: toRanges(protectedLines),
		tokenEstimate: estimateTextTokens(text),
	};
}
