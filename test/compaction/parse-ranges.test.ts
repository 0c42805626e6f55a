import { describe, expect, it } from "vitest";
import { parseRangeRecords } from "../../src/compaction/parse-ranges.js";

describe("parseRangeRecords, a finished reply", () => {
	it("reads one start,end record per line, with or without a final newline", () => {
		expect(parseRangeRecords("12,40\n3,3\n0,7")).toEqual({
			ok: true,
			ranges: [
				{ start: 12, end: 40 },
				{ start: 3, end: 3 },
				{ start: 0, end: 7 },
			],
		});
		expect(parseRangeRecords("5,9\n")).toEqual({ ok: true, ranges: [{ start: 5, end: 9 }] });
	});

	it("keeps reversed pairs for validation to swap", () => {
		expect(parseRangeRecords("9,5")).toEqual({ ok: true, ranges: [{ start: 9, end: 5 }] });
	});

	it.each([
		["a leading zero", "01,2"],
		["a sign", "+1,2"],
		["a negative number", "-1,2"],
		["a space", "1, 2"],
		["a trailing space", "1,2 "],
		["three numbers", "1,2,3"],
		["a carriage return", "1,2\r"],
		["letters", "a,b"],
		["a single number", "7"],
		["a range dash", "1-2"],
		["a code fence", "```\n1,2\n```"],
		["a decimal", "1.5,2"],
	])("rejects a line with %s", (_, text) => {
		expect(parseRangeRecords(text)).toEqual({ ok: false, category: "malformed_output" });
	});

	it("rejects the whole reply when one line of many is bad", () => {
		expect(parseRangeRecords("1,2\n3,4\nDone.\n5,6")).toEqual({ ok: false, category: "malformed_output" });
		expect(parseRangeRecords("1,2\r\n3,4\r\n")).toEqual({ ok: false, category: "malformed_output" });
	});

	it("rejects a blank line in the middle, and a second trailing newline", () => {
		expect(parseRangeRecords("1,2\n\n3,4")).toEqual({ ok: false, category: "malformed_output" });
		expect(parseRangeRecords("1,2\n\n")).toEqual({ ok: false, category: "malformed_output" });
	});

	it("treats a reply without records as malformed", () => {
		expect(parseRangeRecords("")).toEqual({ ok: false, category: "malformed_output" });
		expect(parseRangeRecords("\n")).toEqual({ ok: false, category: "malformed_output" });
	});
});

describe("parseRangeRecords, a reply cut by its length limit", () => {
	it("drops the last unterminated piece even when it looks complete", () => {
		expect(parseRangeRecords("10,20\n300,30", { truncated: true })).toEqual({
			ok: true,
			ranges: [{ start: 10, end: 20 }],
		});
		expect(parseRangeRecords("10,20\n30,40\n", { truncated: true })).toEqual({
			ok: true,
			ranges: [
				{ start: 10, end: 20 },
				{ start: 30, end: 40 },
			],
		});
	});

	it("still requires every completed line to be a record; a blank completed line is invalid", () => {
		expect(parseRangeRecords("10,20\n\n30,4", { truncated: true })).toEqual({
			ok: false,
			category: "malformed_output",
		});
		expect(parseRangeRecords("Sure! Here:\n10,20\n3", { truncated: true })).toEqual({
			ok: false,
			category: "malformed_output",
		});
		expect(parseRangeRecords("\n", { truncated: true })).toEqual({ ok: false, category: "malformed_output" });
	});

	it("calls a reply without a single completed line starved", () => {
		expect(parseRangeRecords("", { truncated: true })).toEqual({ ok: false, category: "starved" });
		expect(parseRangeRecords("12,4", { truncated: true })).toEqual({ ok: false, category: "starved" });
	});
});
