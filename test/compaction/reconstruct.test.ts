import { describe, expect, it } from "vitest";
import { freshRanges, freshReconstruction } from "../../src/compaction/fresh-rung.js";
import { createNumberedRegion } from "../../src/compaction/numbering.js";
import { reconstruct, replacementStats, withWholeContextStats } from "../../src/compaction/reconstruct.js";
import { regionOf } from "./helpers.js";

describe("reconstruct", () => {
	it("keeps lines verbatim and replaces each deleted run with one marker", () => {
		const region = regionOf(["[User]: task", "a1", "a2", "a3", "[Assistant]: b", "b1", "[User]: next", "c1"]);
		const result = reconstruct(region, [
			{ start: 2, end: 4 },
			{ start: 6, end: 6 },
		]);
		expect(result.text).toBe(
			["[User]: task", "(filtered 3 lines)", "[Assistant]: b", "(filtered 1 lines)", "[User]: next", "c1"].join("\n"),
		);
		expect(result.deletedRanges).toEqual([
			{ start: 2, end: 4 },
			{ start: 6, end: 6 },
		]);
	});

	it("folds markers across two compactions and adds their counts up", () => {
		const first = reconstruct(
			regionOf(["[User]: task", "a1", "a2", "a3", "[Assistant]: b", "b1", "b2", "[User]: next", "c1", "c2"]),
			[
				{ start: 2, end: 4 },
				{ start: 6, end: 7 },
			],
		);
		expect(first.text).toBe(
			["[User]: task", "(filtered 3 lines)", "[Assistant]: b", "(filtered 2 lines)", "[User]: next", "c1", "c2"].join(
				"\n",
			),
		);
		expect(first.stats).toMatchObject({ linesBefore: 10, linesDeleted: 5, linesKept: 5, rangeCount: 2 });

		// The next region starts with the previous compacted text.
		const second = createNumberedRegion(`${first.text}\n[Assistant]: more\nd1\nd2`);
		expect([...second.priorMarkers]).toEqual([
			[2, 3],
			[4, 2],
		]);
		const result = reconstruct(second, [
			{ start: 3, end: 3 },
			{ start: 6, end: 7 },
		]);
		expect(result.text).toBe(
			[
				"[User]: task",
				"(filtered 6 lines)",
				"[User]: next",
				"(filtered 2 lines)",
				"[Assistant]: more",
				"d1",
				"d2",
			].join("\n"),
		);
		expect(result.deletedRanges).toEqual([
			{ start: 2, end: 4 },
			{ start: 6, end: 7 },
		]);
		expect(result.stats).toMatchObject({ linesBefore: 10, linesDeleted: 5, linesKept: 5, rangeCount: 2 });
	});

	it("folds a chain of markers repeatedly, and leaves markers that touch no deletion", () => {
		const region = regionOf(["(filtered 2 lines)", "(filtered 5 lines)", "x", "y", "(filtered 7 lines)", "z"]);
		expect(reconstruct(region, [{ start: 3, end: 3 }]).text).toBe(
			["(filtered 8 lines)", "y", "(filtered 7 lines)", "z"].join("\n"),
		);
	});

	it("never folds a protected marker", () => {
		const region = regionOf(["<keepContext>", "(filtered 4 lines)", "</keepContext>", "x", "(filtered 2 lines)"]);
		expect(reconstruct(region, [{ start: 4, end: 4 }]).text).toBe(
			["<keepContext>", "(filtered 4 lines)", "</keepContext>", "(filtered 3 lines)"].join("\n"),
		);
	});

	it("computes stats from lines and characters / 4", () => {
		const region = regionOf(Array.from({ length: 11 }, () => "xxxxxxx"));
		expect(region.tokenEstimate).toBe(22);
		const result = reconstruct(region, [{ start: 3, end: 8 }]);
		expect(result.text.length).toBe(58);
		expect(result.stats).toEqual({
			linesBefore: 11,
			linesDeleted: 6,
			linesKept: 5,
			rangeCount: 1,
			tokensBefore: 22,
			tokensAfter: 15,
			percentReduction: 31.8,
		});
		expect(withWholeContextStats(result.stats, 1000, 200)).toEqual({
			linesBefore: 11,
			linesDeleted: 6,
			linesKept: 5,
			rangeCount: 1,
			tokensBefore: 1000,
			tokensAfter: 215,
			percentReduction: 78.5,
		});
	});

	it("computes stats for replacement text from line counts, with no ranges", () => {
		const region = regionOf(Array.from({ length: 11 }, () => "xxxxxxx"));
		expect(replacementStats(region, "short\nsummary")).toEqual({
			linesBefore: 11,
			linesDeleted: 9,
			linesKept: 2,
			rangeCount: 0,
			tokensBefore: 22,
			tokensAfter: 4,
			percentReduction: 81.8,
		});
	});
});

describe("the fresh rung", () => {
	it("deletes the whole region as one range", () => {
		const region = regionOf(["[User]: a", "b", "", "[Assistant]: c"]);
		expect(freshRanges(region)).toEqual([{ start: 1, end: 4 }]);
		expect(freshReconstruction(region).text).toBe("(filtered 4 lines)");
	});

	it("keeps protected spans and folds old markers into the deletion", () => {
		const region = regionOf([
			"(filtered 4 lines)",
			"[User]: <keepContext>",
			"goal",
			"</keepContext>",
			"[Assistant]: x",
			"y",
			"(filtered 10 lines)",
		]);
		expect(freshRanges(region)).toEqual([
			{ start: 1, end: 1 },
			{ start: 5, end: 7 },
		]);
		const result = freshReconstruction(region);
		expect(result.text).toBe(
			["(filtered 4 lines)", "[User]: <keepContext>", "goal", "</keepContext>", "(filtered 12 lines)"].join("\n"),
		);
		expect(result.stats).toMatchObject({ linesBefore: 7, linesDeleted: 4, linesKept: 3, rangeCount: 2 });
	});
});
