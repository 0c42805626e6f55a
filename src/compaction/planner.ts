import { describeError } from "../llm/errors.js";
import type { AssistantMessage } from "../llm/types.js";
import { type NumberedRegion, withoutHead } from "./numbering.js";
import type { CompactionParameters } from "./parameters.js";
import {
	CompactionCancelledError,
	classifyPlannerReply,
	type PlannerFailure,
	type PlannerOutcome,
} from "./planner-outcome.js";
import { buildPlannerRequest } from "./planner-prompt.js";
import { type Reconstruction, reconstruct } from "./reconstruct.js";
import { validateDeletedRanges } from "./validate-ranges.js";

/**
 * Sends one planner request and resolves with the finished reply. Receives the caller's signal
 * and must pass it to the request. Provider failures should resolve as an error reply (as the llm
 * layer's streams do); a rejection is treated as a broken stream, or as cancellation when the
 * signal has fired. Retrying transient errors, if wanted, is the function's own business.
 */
export type RequestPlanner = (
	systemPrompt: string,
	userText: string,
	signal?: AbortSignal,
) => Promise<AssistantMessage>;

export interface PlanInput {
	region: NumberedRegion;
	parameters: CompactionParameters;
	/** The planner model's window, for recognising silent overflow. */
	contextWindow: number;
	requestPlanner: RequestPlanner;
	signal?: AbortSignal;
}

/** One request of the ladder: which view it showed (lines withheld from the head) and what came back. */
export interface PlannerAttempt {
	withheldLines: number;
	outcome: PlannerOutcome;
	reply?: AssistantMessage;
}

export type PlanResult =
	| { ok: true; reconstruction: Reconstruction; recovered: boolean; withheldLines: number; attempts: PlannerAttempt[] }
	| { ok: false; failure: PlannerFailure; attempts: PlannerAttempt[] };

function throwIfCancelled(signal: AbortSignal | undefined, cause?: unknown): void {
	if (signal?.aborted) throw new CompactionCancelledError(cause === undefined ? undefined : { cause });
}

/** The next number of head lines to withhold after an overflow, or undefined when no smaller view is left. */
export function nextWithheldLines(totalLines: number, withheld: number): number | undefined {
	const next = withheld + Math.max(1, Math.floor((totalLines - withheld) / 2));
	return next < totalLines ? next : undefined;
}

/**
 * Asks one model for deletion ranges over the region (§5.8). When the request itself does not
 * fit, the oldest part of the region is withheld and the same model is asked again about the
 * rest; the withheld head is then deleted outright (protected lines in it still survive).
 * Any other failure ends the ladder for this model.
 */
export async function planCompaction(input: PlanInput): Promise<PlanResult> {
	const { region, parameters, contextWindow, requestPlanner, signal } = input;
	const attempts: PlannerAttempt[] = [];
	let withheld = 0;
	for (;;) {
		throwIfCancelled(signal);
		const view = withheld === 0 ? region : withoutHead(region, withheld);
		const request = buildPlannerRequest(view, parameters);
		let reply: AssistantMessage;
		try {
			reply = await requestPlanner(request.systemPrompt, request.userText, signal);
		} catch (error) {
			throwIfCancelled(signal, error);
			const failure: PlannerFailure = {
				kind: "providerError",
				category: "stream_error",
				message: describeError(error),
			};
			attempts.push({ withheldLines: withheld, outcome: failure });
			return { ok: false, failure, attempts };
		}
		throwIfCancelled(signal);
		const outcome = classifyPlannerReply(
			reply,
			{ totalLines: view.lines.length, protectedLines: view.protectedLines },
			contextWindow,
		);
		attempts.push({ withheldLines: withheld, outcome, reply });
		if (outcome.kind === "planned" || outcome.kind === "recovered") {
			const ranges = outcome.ranges.map((range) => ({ start: range.start + withheld, end: range.end + withheld }));
			if (withheld > 0) ranges.push({ start: 1, end: withheld });
			const validated = validateDeletedRanges(ranges, region.lines.length, region.protectedLines);
			return {
				ok: true,
				reconstruction: reconstruct(region, validated),
				recovered: outcome.kind === "recovered",
				withheldLines: withheld,
				attempts,
			};
		}
		if (outcome.kind !== "overflowed") return { ok: false, failure: outcome, attempts };
		const next = nextWithheldLines(region.lines.length, withheld);
		if (next === undefined) return { ok: false, failure: outcome, attempts };
		withheld = next;
	}
}
