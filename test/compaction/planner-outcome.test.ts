import { describe, expect, it } from "vitest";
import { classifyPlannerReply } from "../../src/compaction/planner-outcome.js";
import { errorFromStatus, type ProviderError, providerError } from "../../src/llm/errors.js";
import { OVERFLOW_ERROR, plannerReply } from "./helpers.js";

const view = { totalLines: 10, protectedLines: [3, 4] };
const window = 1000;

describe("classifyPlannerReply", () => {
	it("turns a finished reply into validated ranges", () => {
		expect(classifyPlannerReply(plannerReply("6,7\n1,5\n9,12\n"), view, window)).toEqual({
			kind: "planned",
			ranges: [
				{ start: 1, end: 2 },
				{ start: 5, end: 7 },
				{ start: 9, end: 10 },
			],
		});
	});

	it("concatenates text blocks without adding a separator and ignores thinking", () => {
		const reply = plannerReply("1,2\n", { thinking: "lines 5-6 are noise" });
		reply.content.push({ type: "text", text: "5,6" });
		expect(classifyPlannerReply(reply, view, window)).toEqual({
			kind: "planned",
			ranges: [
				{ start: 1, end: 2 },
				{ start: 5, end: 6 },
			],
		});
	});

	it("rejects malformed text and ranges that delete nothing", () => {
		expect(classifyPlannerReply(plannerReply("Here are the ranges:\n1,2"), view, window)).toEqual({
			kind: "unusable",
			category: "malformed_output",
		});
		expect(classifyPlannerReply(plannerReply("3,4\n20,30"), view, window)).toEqual({
			kind: "unusable",
			category: "no_usable_ranges",
		});
	});

	it("recovers the completed records of a reply cut by its length limit", () => {
		expect(classifyPlannerReply(plannerReply("1,2\n8,1", { stopReason: "length" }), view, window)).toEqual({
			kind: "recovered",
			ranges: [{ start: 1, end: 2 }],
		});
		expect(
			classifyPlannerReply(plannerReply("", { stopReason: "length", thinking: "hmm", output: 500 }), view, window),
		).toEqual({ kind: "unusable", category: "starved" });
		expect(classifyPlannerReply(plannerReply("3,3\n", { stopReason: "length" }), view, window)).toEqual({
			kind: "unusable",
			category: "no_usable_ranges",
		});
	});

	it("throws when the request was aborted", () => {
		expect(() => classifyPlannerReply(plannerReply("1,2", { stopReason: "aborted" }), view, window)).toThrow(
			"Compaction cancelled",
		);
	});

	it("recognises reported and silent overflow before reading the text", () => {
		const reported = plannerReply("", {
			stopReason: "error",
			errorMessage: "400 prompt is too long: 250000 tokens > 200000 maximum",
			error: OVERFLOW_ERROR,
		});
		expect(classifyPlannerReply(reported, view, window)).toEqual({
			kind: "overflowed",
			message: "400 prompt is too long: 250000 tokens > 200000 maximum",
		});
		expect(classifyPlannerReply(plannerReply("1,2", { input: 900, cacheRead: 101 }), view, window)).toEqual({
			kind: "overflowed",
		});
		expect(classifyPlannerReply(plannerReply("1,2", { input: 900, cacheRead: 100 }), view, window).kind).toBe(
			"planned",
		);
	});

	it("classifies provider errors from their structured error", () => {
		const error = (errorMessage: string, failure: ProviderError) =>
			classifyPlannerReply(plannerReply("", { stopReason: "error", errorMessage, error: failure }), view, window);
		expect(error('429 {"error":{"message":"Rate limit reached"}}', errorFromStatus(429))).toEqual({
			kind: "rateLimited",
			category: "rate_limited",
			message: '429 {"error":{"message":"Rate limit reached"}}',
		});
		expect(error("503 service unavailable", errorFromStatus(503))).toMatchObject({
			kind: "rateLimited",
			category: "rate_limited",
		});
		expect(error('529 {"type":"overloaded_error"}', errorFromStatus(529))).toMatchObject({
			kind: "rateLimited",
			category: "rate_limited",
		});
		const quota = providerError("quota", { status: 429, code: "insufficient_quota" });
		expect(
			error("429 You exceeded your current quota, please check your plan and billing details", quota),
		).toMatchObject({
			kind: "rateLimited",
			category: "quota",
		});
		expect(error("400 invalid model", errorFromStatus(400))).toEqual({
			kind: "providerError",
			category: "provider_error",
			message: "400 invalid model",
		});
		expect(error("fetch failed (ECONNRESET)", providerError("network", { code: "ECONNRESET" }))).toMatchObject({
			kind: "providerError",
			category: "stream_error",
		});
	});

	it("reads nothing from the text of an unclassified error", () => {
		expect(
			classifyPlannerReply(plannerReply("", { stopReason: "error", errorMessage: "529 overloaded" }), view, window),
		).toEqual({
			kind: "providerError",
			category: "provider_error",
			message: "529 overloaded",
		});
	});
});
