/**
 * Failures OpenAI-compatible servers report, as their documentation shows them: error objects in
 * an SSE `data:` line of an HTTP 200 stream, and error bodies of their own shape. Each ends the
 * reply with the structured error retry and compaction decide on.
 */
import { describe, expect, it } from "vitest";
import { streamModel } from "../../src/llm/registry.js";
import type { AssistantMessage } from "../../src/llm/types.js";
import type { ScriptedReply } from "../support/llm-server.js";
import { testModel } from "../support/models.js";
import { sse } from "../support/wire/index.js";
import { chunk, DONE } from "./completions-fixtures.js";
import { errorClass } from "./error-helpers.js";
import { hello, useLlmServer } from "./openai-test-helpers.js";

const ctx = useLlmServer();

async function replyTo(script: ScriptedReply): Promise<AssistantMessage> {
	ctx.server.enqueue(script);
	return streamModel(testModel(ctx.server, "openai-completions"), hello).result();
}

describe("errors inside a 200 stream", () => {
	it("ends with OpenRouter's mid-stream error, keeping the text so far, as a retryable server error", async () => {
		const message = await replyTo({
			raw: [
				chunk({ role: "assistant", content: "Part" }),
				sse({
					id: "cmpl-abc123",
					object: "chat.completion.chunk",
					created: 1_700_000_000,
					model: "openai/gpt-4o",
					provider: "openai",
					error: { code: "server_error", message: "Provider disconnected unexpectedly" },
					choices: [{ index: 0, delta: { content: "" }, finish_reason: "error" }],
				}),
			],
		});
		expect(message.stopReason).toBe("error");
		expect(message.errorMessage).toBe("500 Provider disconnected unexpectedly");
		expect(message.content).toEqual([{ type: "text", text: "Part" }]);
		expect(message.error).toEqual({ kind: "server_error", retryable: true, status: 500, code: "server_error" });
	});

	it("reads a rate limit by its code", async () => {
		const message = await replyTo({
			raw: [
				sse({ error: { message: "Rate limit reached for requests", type: "requests", code: "rate_limit_exceeded" } }),
			],
		});
		expect(message.errorMessage).toBe("429 Rate limit reached for requests");
		expect(message.error).toMatchObject({ kind: "rate_limit", retryable: true, status: 429 });
	});

	it("reads llama.cpp's exceed_context_size_error as a context overflow", async () => {
		const message = await replyTo({
			raw: [
				sse({
					error: {
						code: 400,
						message: "request (4476 tokens) exceeds the available context size (4096 tokens)",
						type: "exceed_context_size_error",
						n_prompt_tokens: 4476,
						n_ctx: 4096,
					},
				}),
			],
		});
		expect(message.error).toMatchObject({ kind: "context_overflow", status: 400, code: "exceed_context_size_error" });
		expect(errorClass(message)).toBe("context_overflow");
	});

	it("reads vLLM's error object sent as a chunk of its own", async () => {
		const message = await replyTo({
			raw: [
				chunk({ role: "assistant", content: "" }),
				sse({
					object: "error",
					message: "Invalid tool call arguments",
					type: "BadRequestError",
					param: null,
					code: 400,
				}),
				DONE,
			],
		});
		expect(message.errorMessage).toBe("400 Invalid tool call arguments");
		expect(message.error).toMatchObject({ kind: "invalid_request", retryable: false, status: 400 });
	});

	it("retries a finish_reason of error that came without an error object", async () => {
		const message = await replyTo({
			raw: [chunk({ role: "assistant", content: "Pa" }), chunk({}, { finish: "error" }), DONE],
		});
		expect(message.stopReason).toBe("error");
		expect(message.errorMessage).toBe("The provider ended the reply with an error (finish_reason: error)");
		expect(errorClass(message)).toBe("transient");
	});

	it("does not retry a content filter stop (Azure)", async () => {
		const message = await replyTo({
			raw: [chunk({ role: "assistant", content: "Pa" }), chunk({}, { finish: "content_filter" }), DONE],
		});
		expect(message.error).toEqual({ kind: "content_filter", retryable: false, code: "content_filter" });
	});
});

describe("HTTP error bodies of compatible servers", () => {
	it("reads the status, the code and retry-after-ms of an OpenAI rate limit", async () => {
		const message = await replyTo({ status: 429, headers: { "retry-after-ms": "1500" } });
		expect(message.error).toEqual({
			kind: "rate_limit",
			retryable: true,
			status: 429,
			code: "rate_limit_exceeded",
			retryAfterMs: 1500,
		});
	});

	it("does not retry a spent quota, though it comes as a 429", async () => {
		const message = await replyTo({
			status: 429,
			errorMessage: "You exceeded your current quota, please check your plan and billing details.",
		});
		expect(message.error).toMatchObject({ kind: "quota", retryable: false, status: 429, code: "insufficient_quota" });
	});

	it("reads OpenRouter's 402 (no credits) as a quota", async () => {
		const message = await replyTo({
			status: 402,
			errorBody: {
				error: { code: 402, message: "Insufficient credits. Add more using https://openrouter.ai/credits" },
			},
		});
		expect(message.error).toMatchObject({ kind: "quota", retryable: false, status: 402 });
	});

	it.each([
		[
			"Groq",
			400,
			{
				error: {
					message: "Please reduce the length of the messages or completion.",
					type: "invalid_request_error",
					param: "messages",
					code: "context_length_exceeded",
				},
			},
		],
		[
			"llama.cpp",
			400,
			{
				error: {
					code: 400,
					message: "the request exceeds the available context size, try increasing it",
					type: "exceed_context_size_error",
					n_prompt_tokens: 9000,
					n_ctx: 8192,
				},
			},
		],
		[
			"vLLM",
			400,
			{
				object: "error",
				message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.",
				type: "BadRequestError",
				param: null,
				code: 400,
			},
		],
		["Ollama", 500, { error: { message: "prompt too long; exceeded max context length by 2048 tokens" } }],
	])("reads %s's overflow as a context overflow", async (_server, status, errorBody) => {
		const message = await replyTo({ status, errorBody });
		expect(message.stopReason).toBe("error");
		expect(message.error).toMatchObject({ kind: "context_overflow", retryable: false, status });
	});

	it("does not take a rate limit that mentions tokens for an overflow", async () => {
		const message = await replyTo({ status: 429, errorMessage: "Rate limit reached: too many tokens per minute" });
		expect(message.error).toMatchObject({ kind: "rate_limit", retryable: true });
	});
});
