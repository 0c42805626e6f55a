import type { LineRange } from "./numbering.js";

/** A range as it may arrive from a parser or an extension: endpoints are coerced with Number(). */
export interface RangeInput {
	start: unknown;
	end: unknown;
}

/**
 * Turns planner ranges into the lines Atomic will delete (§5.6): endpoints made integers, reversed
 * pairs swapped, ranges cut to [1, totalLines], sorted, overlapping and touching ranges merged,
 * and protected lines cut out. An empty result means the reply was of no use.
 */
export function validateDeletedRanges(
	ranges: readonly RangeInput[],
	totalLines: number,
	protectedLines: readonly number[],
): LineRange[] {
	const cleaned: LineRange[] = [];
	for (const range of ranges) {
		const first = Number(range.start);
		const second = Number(range.end);
		if (!Number.isFinite(first) || !Number.isFinite(second)) continue;
		const low = Math.trunc(Math.min(first, second));
		const high = Math.trunc(Math.max(first, second));
		const start = Math.max(1, low);
		const end = Math.min(totalLines, high);
		if (start <= end) cleaned.push({ start, end });
	}
	cleaned.sort((a, b) => a.start - b.start || a.end - b.end);
	const merged: LineRange[] = [];
	for (const range of cleaned) {
		const last = merged.at(-1);
		if (last && range.start <= last.end + 1) last.end = Math.max(last.end, range.end);
		else merged.push({ ...range });
	}
	const isProtected = new Set(protectedLines);
	return merged.flatMap((range) => withoutProtected(range, isProtected));
}

function withoutProtected(range: LineRange, protectedLines: ReadonlySet<number>): LineRange[] {
	const pieces: LineRange[] = [];
	let pieceStart: number | undefined;
	for (let line = range.start; line <= range.end; line++) {
		if (protectedLines.has(line)) {
			if (pieceStart !== undefined) pieces.push({ start: pieceStart, end: line - 1 });
			pieceStart = undefined;
		} else {
			pieceStart ??= line;
		}
	}
	if (pieceStart !== undefined) pieces.push({ start: pieceStart, end: range.end });
	return pieces;
}
