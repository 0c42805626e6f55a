import { describe, expect, it } from "vitest";
import type { RequestPlanner } from "../../src/compaction/planner.js";
import type { CompactionPreparation } from "../../src/compaction/region.js";
import { compactionDetails, compactionEntryFields } from "../../src/compaction/result.js";
import { CompactionError, runCompaction } from "../../src/compaction/runner.js";
import { errorFromStatus } from "../../src/llm/errors.js";
import { numberedLines, plannerReply, regionOf } from "./helpers.js";

const parameters = { compression_ratio: 0.5, preserve_recent: 2, query: "fix the test" };

function preparation(lineCount: number, tailTokens = 50): CompactionPreparation {
	return {
		firstKeptEntryId: "m7",
		region: regionOf(numberedLines(lineCount, "xxxx")),
		regionEntryIds: ["m1", "m2"],
		keptTailMessageCount: 2,
		tailTokens,
		parameters,
	};
}

const replying =
	(text: string): RequestPlanner =>
	async () =>
		plannerReply(text);

describe("runCompaction", () => {
	it("returns the planned result with whole-context stats", async () => {
		const { result, attempts } = await runCompaction({
			preparation: preparation(20),
			urgency: "recoverable",
			contextWindow: 200_000,
			wholeContextTokensBefore: 1000,
			requestPlanner: replying("1,10\n"),
		});
		expect(attempts).toHaveLength(1);
		const compactedText = ["(filtered 10 lines)", ...numberedLines(10, "xxxx", 11)].join("\n");
		expect(result).toEqual({
			compactedText,
			summary: compactedText,
			firstKeptEntryId: "m7",
			tokensBefore: 1000,
			promptVersion: 3,
			parameters,
			rung: "planned",
			stats: {
				linesBefore: 20,
				linesDeleted: 10,
				linesKept: 10,
				rangeCount: 1,
				tokensBefore: 1000,
				tokensAfter: Math.ceil(compactedText.length / 4) + 50,
				percentReduction: 92.5,
			},
		});
		expect(compactedText.length).toBe(99);
		expect(compactionEntryFields({ ...result, backupPath: "/s.jsonl.compact.bak" })).toEqual({
			summary: compactedText,
			firstKeptEntryId: "m7",
			tokensBefore: 1000,
			details: {
				strategy: "verbatim-lines",
				promptVersion: 3,
				parameters,
				stats: result.stats,
				rung: "planned",
				backupPath: "/s.jsonl.compact.bak",
			},
		});
		expect(Object.keys(compactionDetails(result))).toEqual([
			"strategy",
			"promptVersion",
			"parameters",
			"stats",
			"rung",
		]);
	});

	it("throws an error naming the category when a recoverable plan fails", async () => {
		const attempt = runCompaction({
			preparation: preparation(20),
			urgency: "recoverable",
			contextWindow: 200_000,
			wholeContextTokensBefore: 1000,
			requestPlanner: replying("99,120\n"),
		});
		await expect(attempt).rejects.toThrow(CompactionError);
		await expect(attempt).rejects.toMatchObject({
			message: "Compaction failed: the model's reply had no usable line ranges",
			category: "no_usable_ranges",
			attempts: [{ withheldLines: 0 }],
		});

		await expect(
			runCompaction({
				preparation: preparation(20),
				urgency: "recoverable",
				contextWindow: 200_000,
				wholeContextTokensBefore: 1000,
				requestPlanner: async () =>
					plannerReply("", {
						stopReason: "error",
						errorMessage: "429 rate limit exceeded",
						error: errorFromStatus(429),
					}),
			}),
		).rejects.toMatchObject({
			message: "Compaction failed: the provider is rate limited or overloaded: 429 rate limit exceeded",
			category: "rate_limited",
		});
	});

	it("refuses a small region when recoverable, without a request", async () => {
		let calls = 0;
		await expect(
			runCompaction({
				preparation: preparation(19),
				urgency: "recoverable",
				contextWindow: 200_000,
				wholeContextTokensBefore: 1000,
				requestPlanner: async () => {
					calls++;
					return plannerReply("1,2");
				},
			}),
		).rejects.toMatchObject({
			message: "Compaction failed: no usable deleted ranges (the region has 19 lines, fewer than 20)",
			category: "no_usable_ranges",
		});
		expect(calls).toBe(0);
	});

	it("falls back to the fresh rung when a load-bearing plan fails", async () => {
		const { result, attempts } = await runCompaction({
			preparation: preparation(20),
			urgency: "load_bearing",
			contextWindow: 200_000,
			wholeContextTokensBefore: 1000,
			requestPlanner: replying("Sorry, I cannot help with that."),
		});
		expect(attempts.map((attempt) => attempt.outcome)).toEqual([{ kind: "unusable", category: "malformed_output" }]);
		expect(result).toMatchObject({
			compactedText: "(filtered 20 lines)",
			firstKeptEntryId: "m7",
			rung: "fresh",
			stats: { linesBefore: 20, linesDeleted: 20, linesKept: 0, rangeCount: 1, tokensBefore: 1000, tokensAfter: 55 },
		});
	});

	it("goes straight to the fresh rung for a small load-bearing region, dropping a tail that alone overflows", async () => {
		const { result, attempts } = await runCompaction({
			preparation: preparation(5, 5000),
			urgency: "load_bearing",
			contextWindow: 4000,
			wholeContextTokensBefore: 6000,
			requestPlanner: replying("1,2"),
		});
		expect(attempts).toEqual([]);
		expect(result).toMatchObject({
			compactedText: "(filtered 5 lines)",
			firstKeptEntryId: null,
			rung: "fresh",
			stats: { tokensBefore: 6000, tokensAfter: 5, percentReduction: 99.9 },
		});
	});

	it("throws Compaction cancelled before doing anything once the signal has fired", async () => {
		const controller = new AbortController();
		controller.abort();
		await expect(
			runCompaction({
				preparation: preparation(5),
				urgency: "load_bearing",
				contextWindow: 4000,
				wholeContextTokensBefore: 6000,
				requestPlanner: replying("1,2"),
				signal: controller.signal,
			}),
		).rejects.toMatchObject({ name: "CompactionCancelledError", message: "Compaction cancelled" });
	});
});
