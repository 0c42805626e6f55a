import { describe, expect, it } from "vitest";
import { nextWithheldLines, planCompaction, type RequestPlanner } from "../../src/compaction/planner.js";
import type { AssistantMessage } from "../../src/llm/types.js";
import { numberedLines, OVERFLOW_ERROR, plannerReply, regionOf } from "./helpers.js";

const parameters = { compression_ratio: 0.5, preserve_recent: 2, query: "the latest user request" };
const OVERFLOW = "400 prompt is too long: 999999 tokens > 200000 maximum";

/** Lines of the numbered transcript a request showed. */
function viewLines(userText: string): string[] {
	const match = /<numbered-transcript>\n([\s\S]*?)\n<\/numbered-transcript>/.exec(userText);
	return match?.[1]?.split("\n") ?? [];
}

/** A planner that overflows while the view has more than `fits` lines, then deletes view lines 1-2. */
function overflowingPlanner(fits: number, seen: string[][]): RequestPlanner {
	return async (_system, userText) => {
		const lines = viewLines(userText);
		seen.push(lines);
		if (lines.length > fits)
			return plannerReply("", { stopReason: "error", errorMessage: OVERFLOW, error: OVERFLOW_ERROR });
		return plannerReply("1,2\n");
	};
}

describe("planCompaction", () => {
	it("plans with one request when the region fits", async () => {
		const region = regionOf(numberedLines(6));
		const requests: { systemPrompt: string; userText: string }[] = [];
		const result = await planCompaction({
			region,
			parameters,
			contextWindow: 200_000,
			requestPlanner: async (systemPrompt, userText) => {
				requests.push({ systemPrompt, userText });
				return plannerReply("4,5\n2,2\n");
			},
		});
		expect(requests).toHaveLength(1);
		expect(requests[0]?.userText).toContain("1→line 1\n2→line 2\n");
		expect(result.ok).toBe(true);
		if (!result.ok) return;
		expect(result.reconstruction.text).toBe(
			["line 1", "(filtered 1 lines)", "line 3", "(filtered 2 lines)", "line 6"].join("\n"),
		);
		expect(result.recovered).toBe(false);
		expect(result.withheldLines).toBe(0);
	});

	it("withholds the oldest lines after an overflow, renumbers the view and deletes the withheld head", async () => {
		const lines = numberedLines(40);
		lines[4] = "<keepContext>";
		lines[5] = "pinned";
		lines[6] = "</keepContext>";
		const region = regionOf(lines);
		const seen: string[][] = [];
		const result = await planCompaction({
			region,
			parameters,
			contextWindow: 200_000,
			requestPlanner: overflowingPlanner(12, seen),
		});
		expect(seen.map((view) => view.length)).toEqual([40, 20, 10]);
		expect(seen[2]?.[0]).toBe("1→line 31");
		expect(seen[2]?.[9]).toBe("10→line 40");
		expect(result.ok).toBe(true);
		if (!result.ok) return;
		expect(result.withheldLines).toBe(30);
		expect(result.attempts.map((attempt) => [attempt.withheldLines, attempt.outcome.kind])).toEqual([
			[0, "overflowed"],
			[20, "overflowed"],
			[30, "planned"],
		]);
		expect(result.reconstruction.text).toBe(
			[
				"(filtered 4 lines)",
				"<keepContext>",
				"pinned",
				"</keepContext>",
				"(filtered 25 lines)",
				...numberedLines(8, "line", 33),
			].join("\n"),
		);
		expect(result.reconstruction.stats).toMatchObject({ linesBefore: 40, linesDeleted: 29, rangeCount: 2 });
	});

	it("keeps a span protected in the view when its opener was withheld", async () => {
		const lines = numberedLines(8);
		lines[2] = "<keepContext>";
		const region = regionOf(lines);
		expect(region.protectedLines).toEqual([3, 4, 5, 6, 7, 8]);
		const seen: string[] = [];
		const result = await planCompaction({
			region,
			parameters,
			contextWindow: 200_000,
			requestPlanner: async (_system, userText) => {
				seen.push(userText);
				return seen.length === 1
					? plannerReply("", { stopReason: "error", errorMessage: OVERFLOW, error: OVERFLOW_ERROR })
					: plannerReply("1,4\n");
			},
		});
		expect(seen[1]).toContain("- Protected ranges: 1-4\n");
		expect(result.ok).toBe(false);
		if (result.ok) return;
		expect(result.failure).toEqual({ kind: "unusable", category: "no_usable_ranges" });
	});

	it("gives up once no smaller view is left", async () => {
		const seen: string[][] = [];
		const result = await planCompaction({
			region: regionOf(numberedLines(20)),
			parameters,
			contextWindow: 200_000,
			requestPlanner: overflowingPlanner(0, seen),
		});
		expect(seen.map((view) => view.length)).toEqual([20, 10, 5, 3, 2, 1]);
		expect(result).toMatchObject({ ok: false, failure: { kind: "overflowed", message: OVERFLOW } });
		expect(nextWithheldLines(20, 0)).toBe(10);
		expect(nextWithheldLines(20, 18)).toBe(19);
		expect(nextWithheldLines(20, 19)).toBeUndefined();
	});

	it("stops at the first failure that is not an overflow", async () => {
		let calls = 0;
		const result = await planCompaction({
			region: regionOf(numberedLines(20)),
			parameters,
			contextWindow: 200_000,
			requestPlanner: async () => {
				calls++;
				return plannerReply("I think lines 1 to 5 can go.");
			},
		});
		expect(calls).toBe(1);
		expect(result).toMatchObject({ ok: false, failure: { kind: "unusable", category: "malformed_output" } });
	});

	it("turns a rejected request into a stream error", async () => {
		const result = await planCompaction({
			region: regionOf(numberedLines(20)),
			parameters,
			contextWindow: 200_000,
			requestPlanner: async () => {
				throw new Error("socket hang up");
			},
		});
		expect(result).toEqual({
			ok: false,
			failure: { kind: "providerError", category: "stream_error", message: "socket hang up" },
			attempts: [
				{ withheldLines: 0, outcome: { kind: "providerError", category: "stream_error", message: "socket hang up" } },
			],
		});
	});

	it("throws Compaction cancelled when the signal fires, before or during the request", async () => {
		const controller = new AbortController();
		controller.abort();
		let calls = 0;
		const planner: RequestPlanner = async () => {
			calls++;
			return plannerReply("1,2");
		};
		const region = regionOf(numberedLines(20));
		await expect(
			planCompaction({
				region,
				parameters,
				contextWindow: 200_000,
				requestPlanner: planner,
				signal: controller.signal,
			}),
		).rejects.toThrow("Compaction cancelled");
		expect(calls).toBe(0);

		const during = new AbortController();
		const rejecting: RequestPlanner = async (_system, _user, signal): Promise<AssistantMessage> => {
			during.abort();
			expect(signal).toBe(during.signal);
			throw new Error("This operation was aborted");
		};
		await expect(
			planCompaction({ region, parameters, contextWindow: 200_000, requestPlanner: rejecting, signal: during.signal }),
		).rejects.toThrow("Compaction cancelled");
	});
});
