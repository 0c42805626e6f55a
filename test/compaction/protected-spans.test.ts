import { describe, expect, it } from "vitest";
import { regionOf } from "./helpers.js";

function protectedOf(lines: string[]): number[] {
	return [...regionOf(lines).protectedLines];
}

describe("<keepContext> spans", () => {
	it("protects every line of a span, the tag lines included", () => {
		const region = regionOf(["[User]: start", "<keepContext>", "keep me", "</keepContext>", "free"]);
		expect(region.protectedLines).toEqual([2, 3, 4]);
		expect(region.protectedRanges).toEqual([{ start: 2, end: 4 }]);
	});

	it("accepts a tag sharing the header line, surrounding whitespace and any letter case", () => {
		expect(protectedOf(["[User]: <keepContext>", "a", "  </KEEPCONTEXT>  ", "b"])).toEqual([1, 2, 3]);
		expect(protectedOf(["[Assistant]:   <KeepContext>\t", "a", "[User]: b"])).toEqual([1, 2]);
	});

	it("ignores tags mentioned inside prose", () => {
		expect(protectedOf(["[User]: wrap it in <keepContext> please", "a", "use </keepContext> to close", "b"])).toEqual(
			[],
		);
	});

	it("closes an open span at the line before the next section header", () => {
		expect(protectedOf(["[User]: <keepContext>", "a", "", "[Assistant]: b", "</keepContext>", "c"])).toEqual([1, 2, 3]);
	});

	it("runs an unclosed span to the end of the region", () => {
		expect(protectedOf(["[User]: x", "<keepContext>", "a", "b"])).toEqual([2, 3, 4]);
	});

	it("flattens nested openers: the first closer ends the span", () => {
		expect(
			protectedOf(["[User]: <keepContext>", "a", "<keepContext>", "b", "</keepContext>", "c", "</keepContext>"]),
		).toEqual([1, 2, 3, 4, 5]);
	});

	it("ignores a closer without an open span", () => {
		expect(protectedOf(["[User]: </keepContext>", "a", "<keepContext>", "b", "</keepContext>"])).toEqual([3, 4, 5]);
	});

	it("ignores tags inside tool results, in any of their lines", () => {
		expect(
			protectedOf(["[Tool result]: <keepContext>", "secret", "</keepContext>", "", "[User]: <keepContext>", "ok"]),
		).toEqual([5, 6]);
		expect(protectedOf(["[Tool result]: file:", "<keepContext>", "x", "</keepContext>"])).toEqual([]);
	});

	it("a tool result header ends a span opened before it", () => {
		expect(protectedOf(["[User]: <keepContext>", "a", "[Tool result]: b", "</keepContext>"])).toEqual([1, 2]);
	});

	it("lets lines before the first header (an earlier summary) protect", () => {
		expect(
			protectedOf(["<keepContext>", "goal: ship v2", "</keepContext>", "(filtered 9 lines)", "[User]: go"]),
		).toEqual([1, 2, 3]);
		expect(protectedOf(["<keepContext>", "goal", "[User]: go"])).toEqual([1, 2]);
	});

	it("reports separate spans as separate ranges", () => {
		const region = regionOf(["<keepContext>", "</keepContext>", "x", "[User]: <keepContext>", "y"]);
		expect(region.protectedRanges).toEqual([
			{ start: 1, end: 2 },
			{ start: 4, end: 5 },
		]);
	});
});
