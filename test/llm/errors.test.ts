import { describe, expect, it } from "vitest";
import { MAX_SERVER_DELAY_MS, RetryPolicy } from "../../src/agent/retry.js";
import {
	describeError,
	errorFromStatus,
	errorFromThrown,
	ProviderFailure,
	providerError,
	retryAfterFromError,
} from "../../src/llm/errors.js";
import type { AssistantMessage } from "../../src/llm/types.js";

describe("errorFromStatus", () => {
	it.each([
		[429, "rate_limit"],
		[529, "overloaded"],
		[503, "overloaded"],
		[500, "server_error"],
		[502, "server_error"],
		[408, "timeout"],
		[409, "invalid_request"],
		[425, "invalid_request"],
	])("%i is retryable (%s)", (status, kind) => {
		expect(errorFromStatus(status)).toEqual({ kind, retryable: true, status });
	});

	it.each([
		[400, "invalid_request"],
		[401, "auth"],
		[403, "auth"],
		[404, "invalid_request"],
		[422, "invalid_request"],
		[402, "quota"],
	])("%i is not retryable (%s)", (status, kind) => {
		expect(errorFromStatus(status)).toEqual({ kind, retryable: false, status });
	});

	it("keeps the provider's code and the server's retry-after", () => {
		expect(errorFromStatus(429, { code: "rate_limit_error", retryAfterMs: 300 })).toEqual({
			kind: "rate_limit",
			retryable: true,
			status: 429,
			code: "rate_limit_error",
			retryAfterMs: 300,
		});
	});
});

describe("errorFromThrown: typed fields only", () => {
	it("takes a ProviderFailure's classification as it is", () => {
		const error = providerError("context_overflow", { status: 400 });
		expect(errorFromThrown(new ProviderFailure("400 prompt is too long", error))).toBe(error);
	});

	it("reads a numeric status and the retry-after headers", () => {
		const thrown = Object.assign(new Error("boom"), { status: 529, headers: { "retry-after": "2" } });
		expect(errorFromThrown(thrown)).toEqual({ kind: "overloaded", retryable: true, status: 529, retryAfterMs: 2000 });
	});

	it.each([
		["ECONNRESET", "network"],
		["ECONNREFUSED", "network"],
		["EAI_AGAIN", "network"],
		["UND_ERR_SOCKET", "network"],
		["ETIMEDOUT", "timeout"],
		["UND_ERR_BODY_TIMEOUT", "timeout"],
	])("a %s code on a cause is a retryable %s error", (code, kind) => {
		const cause = Object.assign(new Error("socket"), { code });
		const thrown = new TypeError(code === "UND_ERR_SOCKET" ? "terminated" : "fetch failed", { cause });
		expect(errorFromThrown(thrown)).toEqual({ kind, retryable: true, code });
	});

	it("a JSON parse error is an invalid response, not retried", () => {
		expect(errorFromThrown(new SyntaxError("Unexpected token n in JSON at position 1"))).toEqual({
			kind: "invalid_response",
			retryable: false,
		});
	});

	it.each([
		["Something odd happened"],
		["529 Overloaded"],
		["prompt is too long: 9 > 8"],
		["fetch failed (ECONNRESET)"],
	])("an error whose only information is its text (%j) is unknown and not retried", (text) => {
		expect(errorFromThrown(new Error(text))).toEqual({ kind: "unknown", retryable: false });
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
	const failed = (retryAfterMs?: number): AssistantMessage => failedReply(errorFromStatus(429, { retryAfterMs }));
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

describe("RetryPolicy.isRetryable", () => {
	const policy = new RetryPolicy();

	it("follows the reply's structured error", () => {
		expect(policy.isRetryable(failedReply(errorFromStatus(529)))).toBe(true);
		expect(policy.isRetryable(failedReply(errorFromStatus(401)))).toBe(false);
		expect(policy.isRetryable(failedReply(providerError("context_overflow", { status: 400 })))).toBe(false);
	});

	it("never retries on the text alone", () => {
		expect(policy.isRetryable(failedReply(undefined, '529 {"type":"overloaded_error"}'))).toBe(false);
	});

	it("retries nothing when disabled", () => {
		expect(new RetryPolicy({ enabled: false }).isRetryable(failedReply(errorFromStatus(529)))).toBe(false);
	});
});

function failedReply(error: AssistantMessage["error"], errorMessage = "failed"): AssistantMessage {
	return {
		role: "assistant",
		content: [],
		api: "anthropic-messages",
		provider: "test",
		model: "m",
		usage: {
			input: 0,
			output: 0,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: 0,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		},
		stopReason: "error",
		errorMessage,
		...(error ? { error } : {}),
		timestamp: 1,
	};
}
