import { COMPACTION_PROMPT_VERSION, VERBATIM_COMPACTION_STRATEGY } from "./constants.js";
import type { CompactionParameters } from "./parameters.js";
import type { CompactionStats } from "./reconstruct.js";

/** Which way the compacted text was produced. */
export type CompactionRung = "planned" | "fresh" | "extension";

/** The result of one compaction: the RPC `compact` response data and `compaction_end.result`. */
export interface CompactionResult {
	compactedText: string;
	/** The same text as compactedText, under the name pi's clients read (the `compact` response, `compaction_end`). */
	summary: string;
	/** The first entry still replayed after the compacted text, or null when none is. */
	firstKeptEntryId: string | null;
	/** Whole-context estimate before compacting. */
	tokensBefore: number;
	promptVersion: number;
	parameters: CompactionParameters;
	rung: CompactionRung;
	stats: CompactionStats;
	/** Set once the runtime has written the pre-compaction backup. */
	backupPath?: string;
}

/** `details` of the durable compaction entry; `strategy` is what context building looks for. */
export interface VerbatimCompactionDetails {
	strategy: typeof VERBATIM_COMPACTION_STRATEGY;
	promptVersion: number;
	parameters: CompactionParameters;
	stats: CompactionStats;
	rung: CompactionRung;
	backupPath?: string;
}

export function buildCompactionResult(fields: {
	compactedText: string;
	firstKeptEntryId: string | null;
	tokensBefore: number;
	parameters: CompactionParameters;
	rung: CompactionRung;
	stats: CompactionStats;
}): CompactionResult {
	return { ...fields, summary: fields.compactedText, promptVersion: COMPACTION_PROMPT_VERSION };
}

export function compactionDetails(result: CompactionResult): VerbatimCompactionDetails {
	const details: VerbatimCompactionDetails = {
		strategy: VERBATIM_COMPACTION_STRATEGY,
		promptVersion: result.promptVersion,
		parameters: result.parameters,
		stats: result.stats,
		rung: result.rung,
	};
	if (result.backupPath !== undefined) details.backupPath = result.backupPath;
	return details;
}

/** The fields of the compaction entry the runtime appends for a result. */
export function compactionEntryFields(result: CompactionResult): {
	summary: string;
	firstKeptEntryId: string | null;
	tokensBefore: number;
	details: VerbatimCompactionDetails;
} {
	return {
		summary: result.compactedText,
		firstKeptEntryId: result.firstKeptEntryId,
		tokensBefore: result.tokensBefore,
		details: compactionDetails(result),
	};
}
