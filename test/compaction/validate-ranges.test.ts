import { describe, expect, it } from "vitest";
import { validateDeletedRanges } from "../../src/compaction/validate-ranges.js";

describe("validateDeletedRanges", () => {
	it("swaps reversed pairs", () => {
		expect(validateDeletedRanges([{ start: 8, end: 4 }], 20, [])).toEqual([{ start: 4, end: 8 }]);
	});

	it("cuts ranges to the region and drops the ones outside it", () => {
		expect(
			validateDeletedRanges(
				[
					{ start: 0, end: 3 },
					{ start: 18, end: 99 },
					{ start: 30, end: 40 },
					{ start: -5, end: 0 },
				],
				20,
				[],
			),
		).toEqual([
			{ start: 1, end: 3 },
			{ start: 18, end: 20 },
		]);
	});

	it("coerces endpoints, drops non-finite ones and truncates to integers", () => {
		expect(
			validateDeletedRanges(
				[
					{ start: "2", end: "4.9" },
					{ start: Number.NaN, end: 3 },
					{ start: 10, end: Number.POSITIVE_INFINITY },
					{ start: "x", end: 12 },
					{ start: 7.8, end: 7.2 },
				],
				20,
				[],
			),
		).toEqual([
			{ start: 2, end: 4 },
			{ start: 7, end: 7 },
		]);
	});

	it("sorts by start then end and merges overlapping and touching ranges", () => {
		expect(
			validateDeletedRanges(
				[
					{ start: 15, end: 16 },
					{ start: 5, end: 6 },
					{ start: 1, end: 3 },
					{ start: 4, end: 4 },
					{ start: 2, end: 2 },
					{ start: 12, end: 13 },
					{ start: 6, end: 9 },
				],
				20,
				[],
			),
		).toEqual([
			{ start: 1, end: 9 },
			{ start: 12, end: 13 },
			{ start: 15, end: 16 },
		]);
	});

	it("splits merged ranges around protected lines and drops fully protected ones", () => {
		expect(
			validateDeletedRanges(
				[
					{ start: 1, end: 10 },
					{ start: 14, end: 15 },
				],
				20,
				[1, 4, 5, 9, 14, 15],
			),
		).toEqual([
			{ start: 2, end: 3 },
			{ start: 6, end: 8 },
			{ start: 10, end: 10 },
		]);
	});

	it("returns nothing when nothing usable is left", () => {
		expect(validateDeletedRanges([], 20, [])).toEqual([]);
		expect(validateDeletedRanges([{ start: 3, end: 4 }], 20, [3, 4])).toEqual([]);
		expect(validateDeletedRanges([{ start: 25, end: 30 }], 20, [])).toEqual([]);
	});
});
