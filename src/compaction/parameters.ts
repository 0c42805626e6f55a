import { type AgentMessage, convertToLlm } from "../agent/messages.js";
import { entryMessage } from "../session/context.js";
import type { SessionEntry } from "../session/types.js";
import { DEFAULT_COMPACTION_QUERY, DEFAULT_COMPRESSION_RATIO, DEFAULT_PRESERVE_RECENT } from "./constants.js";

/** The three knobs of one compaction, as persisted in `details.parameters` and the RPC result. */
export interface CompactionParameters {
	/** Fraction of region lines to keep, strictly between 0 and 1. */
	compression_ratio: number;
	/** Newest context-visible messages left out of the region; 0 compacts everything. */
	preserve_recent: number;
	/** Relevance focus for the planner; never truncated. */
	query: string;
}

/**
 * Parameters as a caller or settings.json gives them. Fields are `unknown` because settings come
 * from a hand-edited file; anything invalid falls through to the next source.
 */
export interface CompactionParameterInput {
	compression_ratio?: unknown;
	preserve_recent?: unknown;
	query?: unknown;
}

export interface ParameterSources {
	/** The call's own options (RPC `compact`, `session.compact()`): they win. */
	options?: CompactionParameterInput;
	/** `settings.compaction`. */
	settings?: CompactionParameterInput;
	/** Text of the last user turn on the branch (see `detectCompactionQuery`). */
	detectedQuery?: string;
}

function validRatio(value: unknown): number | undefined {
	return typeof value === "number" && Number.isFinite(value) && value > 0 && value < 1 ? value : undefined;
}

function validPreserveRecent(value: unknown): number | undefined {
	return typeof value === "number" && Number.isFinite(value) ? Math.max(0, Math.floor(value)) : undefined;
}

function validQuery(value: unknown): string | undefined {
	return typeof value === "string" && value.trim().length > 0 ? value : undefined;
}

/**
 * Resolves each parameter from the first source that holds a valid value: call options, then
 * settings, then the default (for `query`: the detected user text, then the default).
 */
export function normaliseCompactionParameters(sources: ParameterSources = {}): CompactionParameters {
	const { options = {}, settings = {} } = sources;
	return {
		compression_ratio:
			validRatio(options.compression_ratio) ?? validRatio(settings.compression_ratio) ?? DEFAULT_COMPRESSION_RATIO,
		preserve_recent:
			validPreserveRecent(options.preserve_recent) ??
			validPreserveRecent(settings.preserve_recent) ??
			DEFAULT_PRESERVE_RECENT,
		query:
			validQuery(options.query) ??
			validQuery(settings.query) ??
			validQuery(sources.detectedQuery) ??
			DEFAULT_COMPACTION_QUERY,
	};
}

/**
 * The text of the newest message on the path that reaches the model as a user turn (user, custom
 * not excluded from context, branch summary, bash execution), its converted text blocks joined.
 * Turns without text (images only) are passed over. Undefined when there is none.
 */
export function detectCompactionQuery(pathEntries: readonly SessionEntry[]): string | undefined {
	for (let index = pathEntries.length - 1; index >= 0; index--) {
		const entry = pathEntries[index];
		const message: AgentMessage | undefined = entry ? entryMessage(entry) : undefined;
		if (!message) continue;
		const [converted] = convertToLlm([message]);
		if (converted?.role !== "user") continue;
		const text =
			typeof converted.content === "string"
				? converted.content
				: converted.content.map((block) => (block.type === "text" ? block.text : "")).join("");
		if (text.trim().length > 0) return text;
	}
	return undefined;
}
