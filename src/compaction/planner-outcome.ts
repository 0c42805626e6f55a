import type { ProviderError } from "../llm/errors.js";
import type { AssistantMessage } from "../llm/types.js";
import type { LineRange } from "./numbering.js";
import { parseRangeRecords, type UnusableCategory } from "./parse-ranges.js";
import { isContextOverflowReply } from "./triggers.js";
import { validateDeletedRanges } from "./validate-ranges.js";

/** What one planner reply amounts to. Ranges are validated against the view the planner saw. */
export type PlannerOutcome =
	| { kind: "planned"; ranges: LineRange[] }
	/** The reply was cut by its length limit but its completed records were usable. */
	| { kind: "recovered"; ranges: LineRange[] }
	| { kind: "overflowed"; message?: string }
	| { kind: "rateLimited"; category: "quota" | "rate_limited"; message: string }
	| { kind: "providerError"; category: "provider_error" | "stream_error"; message: string }
	| { kind: "unusable"; category: UnusableCategory };

export type PlannerFailure = Exclude<PlannerOutcome, { kind: "planned" } | { kind: "recovered" }>;

export const COMPACTION_CANCELLED = "Compaction cancelled";

/** Thrown when the caller cancelled; cancellation is never an outcome. */
export class CompactionCancelledError extends Error {
	constructor(options?: ErrorOptions) {
		super(COMPACTION_CANCELLED, options);
		this.name = "CompactionCancelledError";
	}
}

export interface PlannerView {
	totalLines: number;
	protectedLines: readonly number[];
}

/** The reply's text blocks, concatenated as they are (no separator is implied between blocks). */
export function replyText(message: AssistantMessage): string {
	return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

/**
 * Classifies a planner reply (§5.6). Overflow is checked before anything else, so a silently
 * truncated prompt is never mistaken for a plan. Throws CompactionCancelledError when aborted.
 */
export function classifyPlannerReply(
	message: AssistantMessage,
	view: PlannerView,
	contextWindow: number,
): PlannerOutcome {
	if (message.stopReason === "aborted") throw new CompactionCancelledError();
	if (isContextOverflowReply(message, contextWindow)) {
		return message.errorMessage ? { kind: "overflowed", message: message.errorMessage } : { kind: "overflowed" };
	}
	if (message.stopReason === "error") {
		return classifyProviderError(message.errorMessage ?? "unknown provider error", message.error);
	}

	const truncated = message.stopReason === "length";
	const parsed = parseRangeRecords(replyText(message), { truncated });
	if (!parsed.ok) return { kind: "unusable", category: parsed.category };
	const ranges = validateDeletedRanges(parsed.ranges, view.totalLines, view.protectedLines);
	if (ranges.length === 0) return { kind: "unusable", category: "no_usable_ranges" };
	return { kind: truncated ? "recovered" : "planned", ranges };
}

/** From the provider's classification: quota, rate limits and server trouble, broken streams, the rest. */
function classifyProviderError(errorMessage: string, error: ProviderError | undefined): PlannerFailure {
	switch (error?.kind) {
		case "quota":
			return { kind: "rateLimited", category: "quota", message: errorMessage };
		case "rate_limit":
		case "overloaded":
		case "server_error":
			return { kind: "rateLimited", category: "rate_limited", message: errorMessage };
		case "network":
		case "timeout":
			// Broken connections or streams, not provider verdicts.
			return { kind: "providerError", category: "stream_error", message: errorMessage };
		default:
			return { kind: "providerError", category: "provider_error", message: errorMessage };
	}
}
