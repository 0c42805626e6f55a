import { MIN_COMPACTABLE_REGION_LINES } from "./constants.js";
import { freshReconstruction } from "./fresh-rung.js";
import type { UnusableCategory } from "./parse-ranges.js";
import { type PlannerAttempt, planCompaction, type RequestPlanner } from "./planner.js";
import { CompactionCancelledError, type PlannerFailure } from "./planner-outcome.js";
import { withWholeContextStats } from "./reconstruct.js";
import type { CompactionPreparation } from "./region.js";
import { buildCompactionResult, type CompactionResult } from "./result.js";

/**
 * "recoverable": the context still works without compacting (manual, threshold), so a failed
 * plan is an error. "load_bearing": the next request cannot be sent otherwise (overflow recovery,
 * post-tool preflight), so a failed plan falls back to the fresh rung.
 */
export type CompactionUrgency = "recoverable" | "load_bearing";

export type CompactionFailureCategory =
	| UnusableCategory
	| "context_overflow"
	| "rate_limited"
	| "quota"
	| "provider_error"
	| "stream_error";

/** A recoverable compaction that produced nothing; nothing was written. */
export class CompactionError extends Error {
	constructor(
		readonly category: CompactionFailureCategory,
		message: string,
		readonly attempts: PlannerAttempt[] = [],
	) {
		super(message);
		this.name = "CompactionError";
	}
}

export interface RunCompactionInput {
	preparation: CompactionPreparation;
	urgency: CompactionUrgency;
	/** The session model's window: planner overflow detection and the fresh rung's tail check. */
	contextWindow: number;
	/** Estimate of the whole current context, reported as `tokensBefore`. */
	wholeContextTokensBefore: number;
	requestPlanner: RequestPlanner;
	signal?: AbortSignal;
}

export interface RunCompactionOutput {
	result: CompactionResult;
	/** Planner requests made, for diagnostics (empty on a direct fresh rung). */
	attempts: PlannerAttempt[];
}

/**
 * Compacts a prepared region with the session model (§5.8, one planner candidate). Throws
 * CompactionCancelledError when cancelled and, for recoverable urgency, CompactionError when
 * the planner could not help.
 */
export async function runCompaction(input: RunCompactionInput): Promise<RunCompactionOutput> {
	const { preparation, urgency } = input;
	if (input.signal?.aborted) throw new CompactionCancelledError();
	const lineCount = preparation.region.lines.length;
	if (lineCount < MIN_COMPACTABLE_REGION_LINES) {
		if (urgency === "load_bearing") return { result: freshResult(input), attempts: [] };
		throw new CompactionError(
			"no_usable_ranges",
			`Compaction failed: no usable deleted ranges (the region has ${lineCount} lines, fewer than ${MIN_COMPACTABLE_REGION_LINES})`,
		);
	}
	const plan = await planCompaction({
		region: preparation.region,
		parameters: preparation.parameters,
		contextWindow: input.contextWindow,
		requestPlanner: input.requestPlanner,
		...(input.signal ? { signal: input.signal } : {}),
	});
	if (plan.ok) {
		const result = buildCompactionResult({
			compactedText: plan.reconstruction.text,
			firstKeptEntryId: preparation.firstKeptEntryId,
			tokensBefore: input.wholeContextTokensBefore,
			parameters: preparation.parameters,
			rung: "planned",
			stats: withWholeContextStats(plan.reconstruction.stats, input.wholeContextTokensBefore, preparation.tailTokens),
		});
		return { result, attempts: plan.attempts };
	}
	if (urgency === "load_bearing") return { result: freshResult(input), attempts: plan.attempts };
	const { category, message } = describeFailure(plan.failure);
	throw new CompactionError(category, message, plan.attempts);
}

/** No model call: the region collapses to its protected spans; the tail goes too if it alone overflows. */
function freshResult(input: RunCompactionInput): CompactionResult {
	const { preparation } = input;
	const reconstruction = freshReconstruction(preparation.region);
	const dropTail = preparation.tailTokens > input.contextWindow;
	return buildCompactionResult({
		compactedText: reconstruction.text,
		firstKeptEntryId: dropTail ? null : preparation.firstKeptEntryId,
		tokensBefore: input.wholeContextTokensBefore,
		parameters: preparation.parameters,
		rung: "fresh",
		stats: withWholeContextStats(
			reconstruction.stats,
			input.wholeContextTokensBefore,
			dropTail ? 0 : preparation.tailTokens,
		),
	});
}

export function describeFailure(failure: PlannerFailure): { category: CompactionFailureCategory; message: string } {
	switch (failure.kind) {
		case "overflowed":
			return {
				category: "context_overflow",
				message:
					"Compaction failed: the transcript does not fit the model's context window, even with its oldest lines left out",
			};
		case "rateLimited":
			return failure.category === "quota"
				? {
						category: "quota",
						message: `Compaction failed: the provider's quota or billing limit was reached: ${failure.message}`,
					}
				: {
						category: "rate_limited",
						message: `Compaction failed: the provider is rate limited or overloaded: ${failure.message}`,
					};
		case "providerError":
			return { category: failure.category, message: `Compaction failed: ${failure.message}` };
		case "unusable":
			return { category: failure.category, message: UNUSABLE_MESSAGES[failure.category] };
	}
}

const UNUSABLE_MESSAGES: Record<UnusableCategory, string> = {
	malformed_output: "Compaction failed: the model's reply was not a list of line ranges",
	no_usable_ranges: "Compaction failed: the model's reply had no usable line ranges",
	starved: "Compaction failed: the model's reply was cut off before it finished a single line range",
};
