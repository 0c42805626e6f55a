import { describe, expect, it } from "vitest";
import {
	calculateContextTokens,
	contextOverflowOf,
	isContextOverflowReply,
	shouldCompact,
} from "../../src/compaction/triggers.js";
import { errorFromStatus } from "../../src/llm/errors.js";
import type { Usage } from "../../src/llm/types.js";
import { OVERFLOW_ERROR, plannerReply } from "./helpers.js";

function usage(input: number, output: number, cacheRead: number, cacheWrite: number, totalTokens = 0): Usage {
	return {
		input,
		output,
		cacheRead,
		cacheWrite,
		totalTokens,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	};
}

describe("calculateContextTokens", () => {
	it("adds input, cache and output tokens", () => {
		expect(calculateContextTokens(usage(100, 20, 5000, 300), "anthropic-messages")).toBe(5420);
		expect(calculateContextTokens(usage(1000, 20, 1000, 0), "openai-responses")).toBe(2020);
	});

	it("counts Anthropic input once when the cache mirrors it within 10%", () => {
		expect(calculateContextTokens(usage(1000, 20, 900, 100), "anthropic-messages")).toBe(1020);
		expect(calculateContextTokens(usage(1000, 20, 1100, 0), "anthropic-messages")).toBe(1020);
		expect(calculateContextTokens(usage(1000, 20, 1101, 0), "anthropic-messages")).toBe(2121);
		expect(calculateContextTokens(usage(1000, 20, 899, 0), "anthropic-messages")).toBe(1919);
	});

	it("falls back to totalTokens when the parts are all zero", () => {
		expect(calculateContextTokens(usage(0, 0, 0, 0, 4321), "openai-completions")).toBe(4321);
	});
});

describe("shouldCompact", () => {
	it("fires once the context leaves less than the reserve free", () => {
		expect(shouldCompact(183_616, 200_000)).toBe(false);
		expect(shouldCompact(183_617, 200_000)).toBe(true);
		expect(shouldCompact(90_001, 100_000, 10_000)).toBe(true);
	});
});

describe("contextOverflowOf", () => {
	it("recognises an overflow error", () => {
		const reply = plannerReply("", {
			stopReason: "error",
			errorMessage: "400 prompt is too long: 9 tokens > 8 maximum",
			error: OVERFLOW_ERROR,
		});
		expect(contextOverflowOf(reply, 1000)).toBe("reported");
		expect(
			contextOverflowOf(
				plannerReply("", { stopReason: "error", errorMessage: "429 too many requests", error: errorFromStatus(429) }),
				1000,
			),
		).toBe(undefined);
	});

	it("recognises silent overflow from usage", () => {
		expect(contextOverflowOf(plannerReply("hi", { input: 600, cacheRead: 401 }), 1000)).toBe("silent_stop");
		expect(contextOverflowOf(plannerReply("hi", { input: 600, cacheRead: 400 }), 1000)).toBeUndefined();
		// A length stop is never one here: one that is an overflow arrives as an error (stream-builder).
		expect(contextOverflowOf(plannerReply("", { stopReason: "length", input: 990, output: 0 }), 1000)).toBeUndefined();
		expect(isContextOverflowReply(plannerReply("hi", { input: 2000 }), 0)).toBe(false);
	});
});
