/**
 * Chat Completions stream fixtures in the shapes servers document: one `data:` frame per chunk, the
 * `[DONE]` sentinel, SSE comments. Each test builds the exact body a given server sends.
 */
import { sse } from "../support/wire/index.js";

export const DONE = "data: [DONE]\n\n";

export interface ChunkOptions {
	finish?: string | null;
	/** Fields beside `choices` (usage, x_groq, provider, ...). */
	extra?: Record<string, unknown>;
	model?: string;
}

/** One `chat.completion.chunk` with a single choice. */
export function chunk(delta: Record<string, unknown>, options: ChunkOptions = {}): string {
	return sse({
		id: "chatcmpl-fixture",
		object: "chat.completion.chunk",
		created: 1_760_000_000,
		model: options.model ?? "fixture-model",
		choices: [{ index: 0, delta, logprobs: null, finish_reason: options.finish ?? null }],
		...options.extra,
	});
}

/** A chunk with an empty `choices` array (usage chunks, keep-alives, Azure's prompt filter results). */
export function emptyChunk(extra: Record<string, unknown> = {}): string {
	return sse({
		id: "chatcmpl-fixture",
		object: "chat.completion.chunk",
		created: 1_760_000_000,
		choices: [],
		...extra,
	});
}

/** A tool-call delta entry. */
export function toolDelta(
	index: number | undefined,
	fields: { id?: string; name?: string; arguments?: unknown },
): Record<string, unknown> {
	const fn: Record<string, unknown> = {};
	if (fields.name !== undefined) fn.name = fields.name;
	if (fields.arguments !== undefined) fn.arguments = fields.arguments;
	return {
		...(index === undefined ? {} : { index }),
		...(fields.id ? { id: fields.id, type: "function" } : {}),
		function: fn,
	};
}

export function usage(prompt: number, completion: number, more: Record<string, unknown> = {}): Record<string, unknown> {
	return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, ...more };
}
