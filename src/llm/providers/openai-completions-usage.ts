import type { UsageUpdate } from "../stream-builder.js";
import { isRecord } from "./openai-shared.js";

/**
 * The usage a chunk reports, from `usage` or Groq's `x_groq.usage`; undefined when it has none.
 * Input excludes cached tokens (`prompt_tokens_details.cached_tokens`, DeepSeek's
 * `prompt_cache_hit_tokens`, Moonshot's `cached_tokens`). Reasoning tokens are counted once: OpenAI
 * includes `completion_tokens_details.reasoning_tokens` in `completion_tokens`, xAI reports them
 * beside it; a `total_tokens` equal to prompt + completion + reasoning says they were outside.
 */
export function readCompletionsUsage(chunk: unknown): UsageUpdate | undefined {
	if (!isRecord(chunk)) return undefined;
	const usage = isRecord(chunk.usage) ? chunk.usage : isRecord(chunk.x_groq) ? chunk.x_groq.usage : undefined;
	if (!isRecord(usage)) return undefined;
	const prompt = count(usage.prompt_tokens);
	const completion = count(usage.completion_tokens);
	const promptDetails = isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
	const completionDetails = isRecord(usage.completion_tokens_details) ? usage.completion_tokens_details : {};
	const cached = Math.min(
		prompt,
		count(promptDetails.cached_tokens) || count(usage.prompt_cache_hit_tokens) || count(usage.cached_tokens),
	);
	const reasoning = count(completionDetails.reasoning_tokens);
	const total = typeof usage.total_tokens === "number" ? usage.total_tokens : undefined;
	const reasoningOutside = reasoning > 0 && total === prompt + completion + reasoning;
	return {
		input: prompt - cached,
		output: completion + (reasoningOutside ? reasoning : 0),
		cacheRead: cached,
	};
}

function count(value: unknown): number {
	return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}
