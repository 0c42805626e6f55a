/**
 * Each protocol module's classification of its provider's failures: by status, type and code, and
 * by text only where the provider says an overflow or an empty balance in nothing else.
 */
import { describe, expect, it } from "vitest";
import { classifyAnthropicFailure } from "../../src/llm/providers/anthropic-errors.js";
import { classifyGoogleFailure } from "../../src/llm/providers/google-errors.js";
import { classifyOpenAIFailure } from "../../src/llm/providers/openai-errors.js";

describe("classifyOpenAIFailure", () => {
	it.each([
		[{ status: 400, code: "context_length_exceeded", message: "Input too long" }],
		[{ status: 400, type: "exceed_context_size_error", message: "request (9 tokens) exceeds (8 tokens)" }],
		[
			{
				status: 400,
				message:
					"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
			},
		],
		[{ status: 400, message: "Your input exceeds the context window of this model." }],
		[{ status: 400, message: "the request exceeds the available context size, try increasing it" }],
		[{ status: 400, message: "Please reduce the length of the messages or completion." }],
		[{ status: 500, message: "prompt too long; exceeded max context length by 2048 tokens" }],
		[{ status: 413, message: "Request too large for model llama-3 with 8192 context" }],
		[{ code: "context_length_exceeded", message: "in-stream overflow" }],
	])("%j is a context overflow", (failure) => {
		expect(classifyOpenAIFailure(failure)).toMatchObject({ kind: "context_overflow", retryable: false });
	});

	it.each([
		[{ status: 429, message: "Rate limit reached: too many tokens per minute" }],
		[{ status: 429, message: "Too many requests: too many input tokens this minute" }],
	])("a rate limit that mentions tokens (%j) is a rate limit, not an overflow", (failure) => {
		expect(classifyOpenAIFailure(failure)).toMatchObject({ kind: "rate_limit", retryable: true, status: 429 });
	});

	it("reads a quota by its code, whatever the status", () => {
		expect(
			classifyOpenAIFailure({ status: 429, code: "insufficient_quota", message: "You exceeded your current quota" }),
		).toEqual({
			kind: "quota",
			retryable: false,
			status: 429,
			code: "insufficient_quota",
		});
	});

	it("takes the status a numeric or named code stands for in a stream error", () => {
		expect(classifyOpenAIFailure({ code: 502, message: "Upstream error" })).toMatchObject({
			kind: "server_error",
			status: 502,
		});
		expect(classifyOpenAIFailure({ code: "server_error", message: "oops" })).toMatchObject({
			kind: "server_error",
			status: 500,
		});
		expect(classifyOpenAIFailure({ code: "weird", message: "429 overloaded" })).toEqual({
			kind: "unknown",
			retryable: false,
			code: "weird",
		});
	});
});

describe("classifyAnthropicFailure", () => {
	it.each([
		["prompt is too long: 213462 tokens > 200000 maximum"],
		["input length and `max_tokens` exceed context limit: 190000 + 21333 > 200000"],
	])("a 400 %j is a context overflow", (message) => {
		expect(classifyAnthropicFailure({ status: 400, type: "invalid_request_error", message })).toMatchObject({
			kind: "context_overflow",
			status: 400,
		});
	});

	it("reads an empty balance, billing errors and spending limits as a quota", () => {
		const credit = {
			status: 400,
			type: "invalid_request_error",
			message: "Your credit balance is too low to access the Anthropic API.",
		};
		expect(classifyAnthropicFailure(credit)).toMatchObject({ kind: "quota", retryable: false });
		expect(classifyAnthropicFailure({ type: "billing_error", message: "Billing issue" })).toMatchObject({
			kind: "quota",
			status: 402,
		});
		const limit = {
			status: 400,
			type: "invalid_request_error",
			errorCode: "enforced_spend_limit_reached",
			message: "Limit",
		};
		expect(classifyAnthropicFailure(limit)).toMatchObject({ kind: "quota", code: "enforced_spend_limit_reached" });
	});

	it.each([
		[{ status: 529, type: "overloaded_error", message: "Overloaded" }, "overloaded", true],
		[{ type: "overloaded_error", message: "Overloaded" }, "overloaded", true],
		[{ status: 429, type: "rate_limit_error", message: "Slow down", retryAfterMs: 2000 }, "rate_limit", true],
		[{ status: 500, type: "api_error", message: "Internal" }, "server_error", true],
		[{ status: 401, type: "authentication_error", message: "invalid x-api-key" }, "auth", false],
		[{ status: 413, type: "request_too_large", message: "Request exceeds the maximum size" }, "invalid_request", false],
		[{ type: "mystery_error", message: "prompt is too long" }, "unknown", false],
	])("%j is %s", (failure, kind, retryable) => {
		expect(classifyAnthropicFailure(failure)).toMatchObject({ kind, retryable });
	});
});

describe("classifyGoogleFailure", () => {
	it("reads a 400 over the token limit as a context overflow", () => {
		const message = "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).";
		expect(classifyGoogleFailure(400, { status: "INVALID_ARGUMENT", message, details: [] })).toEqual({
			kind: "context_overflow",
			retryable: false,
			status: 400,
			code: "INVALID_ARGUMENT",
		});
	});

	it.each([
		[503, "UNAVAILABLE", "overloaded", true],
		[500, "INTERNAL", "server_error", true],
		[429, "RESOURCE_EXHAUSTED", "rate_limit", true],
		[403, "PERMISSION_DENIED", "auth", false],
		[400, "INVALID_ARGUMENT", "invalid_request", false],
	])("%i %s is %s", (status, name, kind, retryable) => {
		expect(classifyGoogleFailure(status, { status: name, message: "x", details: [] })).toMatchObject({
			kind,
			retryable,
		});
	});
});
