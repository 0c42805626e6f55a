import { estimateTextTokens, type LineRange, type NumberedRegion, toRanges } from "./numbering.js";

export interface CompactionStats {
	linesBefore: number;
	/** Physical region lines removed (a folded old marker counts as one). */
	linesDeleted: number;
	linesKept: number;
	/** Deleted runs, one marker line each. */
	rangeCount: number;
	tokensBefore: number;
	tokensAfter: number;
	/** Percent, one decimal. */
	percentReduction: number;
}

export interface Reconstruction {
	text: string;
	/** The maximal deleted runs after marker folding. */
	deletedRanges: LineRange[];
	stats: CompactionStats;
}

export function markerLine(count: number): string {
	return `(filtered ${count} lines)`;
}

export function percentReduction(tokensBefore: number, tokensAfter: number): number {
	if (tokensBefore <= 0) return 0;
	return Math.round((1 - tokensAfter / tokensBefore) * 1000) / 10;
}

/**
 * Rebuilds the region from validated deletion ranges (§5.7): kept lines stay byte-identical and in
 * order, each deleted run becomes one `(filtered K lines)` line. An old marker next to a deleted
 * run joins it, and its count carries over, so K always counts the original lines behind it.
 */
export function reconstruct(region: NumberedRegion, ranges: readonly LineRange[]): Reconstruction {
	const total = region.lines.length;
	const deleted = new Array<boolean>(total + 2).fill(false);
	for (const range of ranges) for (let line = range.start; line <= range.end; line++) deleted[line] = true;
	foldPriorMarkers(region, deleted);

	const output: string[] = [];
	const deletedLines: number[] = [];
	let runCount = 0;
	region.lines.forEach((text, index) => {
		const line = index + 1;
		if (!deleted[line]) {
			if (runCount > 0) output.push(markerLine(runCount));
			runCount = 0;
			output.push(text);
			return;
		}
		deletedLines.push(line);
		runCount += region.priorMarkers.get(line) ?? 1;
	});
	if (runCount > 0) output.push(markerLine(runCount));

	const text = output.join("\n");
	const deletedRanges = toRanges(deletedLines);
	const tokensBefore = region.tokenEstimate;
	const tokensAfter = estimateTextTokens(text);
	return {
		text,
		deletedRanges,
		stats: {
			linesBefore: total,
			linesDeleted: deletedLines.length,
			linesKept: total - deletedLines.length,
			rangeCount: deletedRanges.length,
			tokensBefore,
			tokensAfter,
			percentReduction: percentReduction(tokensBefore, tokensAfter),
		},
	};
}

/** Old markers touching a deleted line are deleted too, repeatedly, so runs of markers fold whole. */
function foldPriorMarkers(region: NumberedRegion, deleted: boolean[]): void {
	const protectedLines = new Set(region.protectedLines);
	let changed = true;
	while (changed) {
		changed = false;
		for (const line of region.priorMarkers.keys()) {
			if (deleted[line] || protectedLines.has(line)) continue;
			if (deleted[line - 1] || deleted[line + 1]) {
				deleted[line] = true;
				changed = true;
			}
		}
	}
}

/**
 * Replaces the region-local token counts with whole-context ones (§5.7 step 4): before = the
 * whole context as it was, after = the compacted text plus the tail kept outside it (pass 0 when
 * the tail was dropped).
 */
export function withWholeContextStats(
	stats: CompactionStats,
	wholeContextTokensBefore: number,
	tailTokens: number,
): CompactionStats {
	const tokensAfter = stats.tokensAfter + tailTokens;
	return {
		...stats,
		tokensBefore: wholeContextTokensBefore,
		tokensAfter,
		percentReduction: percentReduction(wholeContextTokensBefore, tokensAfter),
	};
}

/**
 * Stats for a compacted text that did not come from ranges (an extension supplied it): only line
 * and token counts can be compared.
 */
export function replacementStats(region: NumberedRegion, compactedText: string): CompactionStats {
	const linesKept = Math.min(region.lines.length, compactedText.split("\n").length);
	const tokensAfter = estimateTextTokens(compactedText);
	return {
		linesBefore: region.lines.length,
		linesDeleted: region.lines.length - linesKept,
		linesKept,
		rangeCount: 0,
		tokensBefore: region.tokenEstimate,
		tokensAfter,
		percentReduction: percentReduction(region.tokenEstimate, tokensAfter),
	};
}
