import type { LineRange } from "./numbering.js";

/** Why a planner reply could not be used. */
export type UnusableCategory = "malformed_output" | "no_usable_ranges" | "starved";

export type ParseResult = { ok: true; ranges: LineRange[] } | { ok: false; category: UnusableCategory };

/** Canonical unsigned decimals: "0" or digits without a leading zero. */
const RECORD = /^(0|[1-9][0-9]*),(0|[1-9][0-9]*)$/;

function parseRecord(line: string): LineRange | undefined {
	const match = RECORD.exec(line);
	return match ? { start: Number(match[1]), end: Number(match[2]) } : undefined;
}

function parseAll(lines: readonly string[]): LineRange[] | undefined {
	const ranges: LineRange[] = [];
	for (const line of lines) {
		const range = parseRecord(line);
		if (!range) return undefined;
		ranges.push(range);
	}
	return ranges;
}

/**
 * Reads `start,end` records, one per line (§5.6). One bad line rejects the whole reply: a reply
 * that mixes prose with numbers cannot be trusted to mean what it seems to.
 *
 * `truncated` (the reply hit its length limit): only lines ended by "\n" count, since the last
 * piece may be cut short even when it looks whole ("300,30" of "300,305"). No completed line at
 * all means the budget went before any output ("starved").
 */
export function parseRangeRecords(text: string, options: { truncated?: boolean } = {}): ParseResult {
	if (options.truncated) {
		const lastNewline = text.lastIndexOf("\n");
		if (lastNewline < 0) return { ok: false, category: "starved" };
		const ranges = parseAll(text.slice(0, lastNewline).split("\n"));
		return ranges ? { ok: true, ranges } : { ok: false, category: "malformed_output" };
	}
	const lines = text.split("\n");
	if (lines.at(-1) === "") lines.pop();
	const ranges = parseAll(lines);
	if (!ranges || ranges.length === 0) return { ok: false, category: "malformed_output" };
	return { ok: true, ranges };
}
