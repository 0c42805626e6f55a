import { describe, expect, it } from "vitest";
import { MAX_SERVER_DELAY_MS, RetryPolicy } from "../../src/agent/retry.js";
import {
	classifyErrorMessage,
	describeError,
	isContextOverflow,
	isQuotaError,
	isTransientError,
	noteRetryAfter,
	retryAfterFromError,
	statusOf,
} from "../../src/llm/errors.js";
import type { AssistantMessage } from "../../src/llm/types.js";

describe("classifyErrorMessage: HTTP status", () => {
	it.each([
		[
			'429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}}',
		],
		['529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'],
		['500 {"type":"error","error":{"type":"api_error","message":"Internal server error"}}'],
		["503 upstream connect error"],
		["502 Bad Gateway"],
		["408 Request Timeout"],
		["409 conflict"],
		["425 too early"],
	])("%s is transient", (message) => {
		expect(classifyErrorMessage(message)).toBe("transient");
		expect(isTransientError(message)).toBe(true);
	});

	it.each([
		['400 {"type":"error","error":{"type":"invalid_request_error","message":"messages: field required"}}'],
		['401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}'],
		['403 {"error":{"code":403,"message":"Permission denied","status":"PERMISSION_DENIED"}}'],
		['404 {"error":{"message":"The model `gpt-9` does not exist","code":"model_not_found"}}'],
		["422 unprocessable"],
	])("%s is permanent", (message) => {
		expect(classifyErrorMessage(message)).toBe("permanent");
		expect(isTransientError(message)).toBe(false);
	});

	it("lets the status decide over words: a 400 that mentions a timeout is still permanent", () => {
		expect(classifyErrorMessage("400 invalid value for timeout")).toBe("permanent");
	});

	it.each([
		[
			'429 {"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota"}}',
		],
		["429 insufficient_quota"],
		['400 {"type":"error","error":{"message":"Your credit balance is too low to access the Anthropic API."}}'],
		["429 Quota exceeded for metric: generate_content_requests per day"],
		["402 out of credits"],
		["You have reached your usage limit"],
	])("quota text %s is permanent whatever the status", (message) => {
		expect(isQuotaError(message)).toBe(true);
		expect(classifyErrorMessage(message)).toBe("permanent");
	});
});

describe("classifyErrorMessage: context overflow", () => {
	it.each([
		[
			'400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 213462 tokens > 200000 maximum"}}',
		],
		["400 input length and `max_tokens` exceed context limit: 190000 + 21333 > 200000"],
		["400 Your input exceeds the context window of this model. Please adjust your input and try again."],
		["400 This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens."],
		['400 {"error":{"code":"context_length_exceeded"}}'],
		["400 The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)."],
		["400 the request exceeds the available context size, try increasing it"],
		["500 prompt too long; exceeded max context length by 2048 tokens"],
		["400 Please reduce the length of the messages or completion."],
		["413 Request too large for model llama-3 with 8192 context"],
		["400 context window exceeded"],
	])("%s is context_overflow", (message) => {
		expect(isContextOverflow(message)).toBe(true);
		expect(classifyErrorMessage(message)).toBe("context_overflow");
	});

	it.each([
		["429 ThrottlingException: Too many tokens, please wait before trying again."],
		["429 Rate limit reached: too many tokens per minute"],
		["429 Too many requests: too many input tokens this minute"],
	])("a rate limit that mentions tokens (%s) is transient, not an overflow", (message) => {
		expect(isContextOverflow(message)).toBe(false);
		expect(classifyErrorMessage(message)).toBe("transient");
	});
});

describe("classifyErrorMessage: network, abort and others", () => {
	it.each([
		["read ECONNRESET"],
		["connect ECONNREFUSED 127.0.0.1:9"],
		["socket hang up"],
		["fetch failed"],
		["fetch failed (ECONNRESET)"],
		["terminated"],
		["Connection error."],
		["Request timed out."],
		["getaddrinfo EAI_AGAIN api.anthropic.com"],
		["Provider stream idle for 1000 ms (idle timeout)"],
		["Provider stream ended without a final message"],
		["The service is currently unavailable"],
		["Overloaded"],
	])("%s is transient", (message) => {
		expect(classifyErrorMessage(message)).toBe("transient");
	});

	it.each([
		["Request was aborted"],
		["Request was aborted."],
		["This operation was aborted"],
		["The operation was aborted."],
		["aborted"],
		["Request cancelled by user"],
	])("%s is aborted", (message) => {
		expect(classifyErrorMessage(message)).toBe("aborted");
	});

	it.each([["Something odd happened"], [""], ['No provider for api "grpc"']])(
		"%j without a status or known text is permanent",
		(message) => {
			expect(classifyErrorMessage(message)).toBe("permanent");
		},
	);
});

describe("statusOf", () => {
	it("reads a leading three-digit status only", () => {
		expect(statusOf("529 overloaded")).toBe(529);
		expect(statusOf("  404 not found")).toBe(404);
		expect(statusOf("429")).toBe(429);
		expect(statusOf("error 429")).toBeUndefined();
		expect(statusOf("4290 tokens")).toBeUndefined();
		expect(statusOf("")).toBeUndefined();
	});
});

describe("describeError", () => {
	it("keeps an Error's message and adds its cause's code", () => {
		const cause = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
		expect(describeError(new TypeError("fetch failed", { cause }))).toBe("fetch failed (ECONNRESET)");
	});

	it("does not repeat a code the message already names", () => {
		const cause = { code: "ECONNRESET" };
		expect(describeError(new Error("read ECONNRESET", { cause }))).toBe("read ECONNRESET");
	});

	it("ignores a cause without a code", () => {
		expect(describeError(new Error("529 overloaded", { cause: new Error("inner") }))).toBe("529 overloaded");
	});

	it("falls back to the error's name when it has no message", () => {
		const error = new Error("");
		error.name = "AbortError";
		expect(describeError(error)).toBe("AbortError");
	});

	it("stringifies anything that is not an Error", () => {
		expect(describeError("plain text")).toBe("plain text");
		expect(describeError(42)).toBe("42");
		expect(describeError(undefined)).toBe("undefined");
	});
});

describe("retryAfterFromError", () => {
	const now = Date.parse("2026-01-01T00:00:00Z");
	it("reads retry-after-ms, retry-after seconds and dates, on the error or its cause", () => {
		expect(retryAfterFromError({ headers: new Headers({ "retry-after-ms": "250" }) }, now)).toBe(250);
		expect(retryAfterFromError({ headers: { "retry-after": "3" } }, now)).toBe(3000);
		expect(retryAfterFromError({ headers: { "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" } }, now)).toBe(5000);
		expect(
			retryAfterFromError(new Error("429", { cause: { headers: new Headers({ "retry-after": "2" }) } }), now),
		).toBe(2000);
	});

	it("ignores missing, empty, negative and unparsable values", () => {
		expect(retryAfterFromError(new Error("no headers"), now)).toBeUndefined();
		expect(retryAfterFromError({ headers: { "retry-after": "" } }, now)).toBeUndefined();
		expect(retryAfterFromError({ headers: { "retry-after": "-1" } }, now)).toBeUndefined();
		expect(retryAfterFromError({ headers: { "retry-after": "soon" } }, now)).toBeUndefined();
	});
});

describe("RetryPolicy.delayFor", () => {
	const failed = (retryAfterMs?: number): AssistantMessage => {
		const message = { role: "assistant", stopReason: "error", errorMessage: "429 slow down" } as AssistantMessage;
		noteRetryAfter(message, retryAfterMs);
		return message;
	};
	const policy = new RetryPolicy({ baseDelayMs: 1000 });

	it("backs off exponentially without a server hint", () => {
		expect([1, 2, 3].map((attempt) => policy.delayFor(attempt, failed()))).toEqual([1000, 2000, 4000]);
	});

	it("waits as long as the server asked, but not less than the backoff and never over the cap", () => {
		expect(policy.delayFor(1, failed(5000))).toBe(5000);
		expect(policy.delayFor(3, failed(10))).toBe(4000);
		expect(policy.delayFor(1, failed(3_600_000))).toBe(MAX_SERVER_DELAY_MS);
	});
});
