import type { NormalizedReply } from "../llm-server.js";
import { sse, type Wire } from "./index.js";

const FINISH_REASONS = { stop: "stop", length: "length", toolUse: "tool_calls" } as const;

/**
 * OpenAI Chat Completions streaming: `data: {chunk}` frames ending with `data: [DONE]`. Thinking
 * arrives as `delta.reasoning_content` (DeepSeek, vLLM, llama.cpp); a tool call's first piece
 * carries its id and name, then the arguments follow in pieces; usage comes in a last chunk with
 * empty `choices`, only when the request asked for it (as OpenAI does).
 */
export const openaiCompletionsWire: Wire = {
	frames(reply, requestBody) {
		const model = modelOf(requestBody);
		const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
			sse({
				id: "chatcmpl-test",
				object: "chat.completion.chunk",
				created: 1_700_000_000,
				model,
				choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
			});
		const frames = [chunk({ role: "assistant", content: "" })];
		let toolIndex = 0;
		for (const block of reply.blocks) {
			if (block.type === "thinking") {
				for (const piece of block.pieces) frames.push(chunk({ reasoning_content: piece }));
			} else if (block.type === "text") {
				for (const piece of block.pieces) frames.push(chunk({ content: piece }));
			} else {
				const index = toolIndex++;
				frames.push(
					chunk({
						tool_calls: [{ index, id: block.id, type: "function", function: { name: block.name, arguments: "" } }],
					}),
				);
				for (const piece of block.pieces) {
					frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
				}
			}
		}
		frames.push(chunk({}, FINISH_REASONS[reply.stopReason]));
		if (wantsUsage(requestBody)) frames.push(usageChunk(model, reply));
		frames.push("data: [DONE]\n\n");
		return frames;
	},
	errorBody: openaiErrorBody,
};

function usageChunk(model: string, reply: NormalizedReply): string {
	const prompt = reply.usage.input + reply.usage.cacheRead;
	return sse({
		id: "chatcmpl-test",
		object: "chat.completion.chunk",
		created: 1_700_000_000,
		model,
		choices: [],
		usage: {
			prompt_tokens: prompt,
			completion_tokens: reply.usage.output,
			total_tokens: prompt + reply.usage.output,
			prompt_tokens_details: { cached_tokens: reply.usage.cacheRead, audio_tokens: 0 },
			completion_tokens_details: { reasoning_tokens: 0 },
		},
	});
}

/** OpenAI's error body: `{"error": {message, type, param, code}}`. Shared with the Responses wire. */
export function openaiErrorBody(status: number, message: string): unknown {
	return { error: { message, ...errorKind(status, message), param: null } };
}

function errorKind(status: number, message: string): { type: string; code: string | null } {
	if (status === 429) {
		if (/quota|billing/i.test(message)) return { type: "insufficient_quota", code: "insufficient_quota" };
		return { type: /tokens/i.test(message) ? "tokens" : "requests", code: "rate_limit_exceeded" };
	}
	if (status === 401) return { type: "invalid_request_error", code: "invalid_api_key" };
	if (status === 404) return { type: "invalid_request_error", code: "model_not_found" };
	if (status >= 500) return { type: "server_error", code: null };
	const overflow = /maximum context length|context window/i.test(message);
	return { type: "invalid_request_error", code: overflow ? "context_length_exceeded" : null };
}

export function modelOf(requestBody: unknown): string {
	if (typeof requestBody === "object" && requestBody !== null && "model" in requestBody) {
		return String(requestBody.model);
	}
	return "test-model";
}

function wantsUsage(requestBody: unknown): boolean {
	if (typeof requestBody !== "object" || requestBody === null || !("stream_options" in requestBody)) return false;
	const streamOptions = requestBody.stream_options;
	return typeof streamOptions === "object" && streamOptions !== null && "include_usage" in streamOptions
		? streamOptions.include_usage === true
		: false;
}
