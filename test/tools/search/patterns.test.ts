import { describe, expect, it } from "vitest";
import { temporaryDirectory, writeTree } from "../search-fixture.js";
import { grepTool, splitResult } from "./search-calls.js";

/**
 * What test/tools/hostile-search.test.ts and test/rpc/hostile-search.test.ts leave out: a
 * catastrophic pattern on a long line, a stuck search running beside another one, and the
 * JavaScript regex features (the syntax the tool documents) that ripgrep's default engine refuses.
 */

/** Resolves on the next timer turn: proves the event loop is free while a search runs. */
function nextTimerTurn(): Promise<"free"> {
	return new Promise((resolve) => setTimeout(() => resolve("free"), 20));
}

describe("hostile patterns", () => {
	const root = temporaryDirectory();
	writeTree(root, {
		"hostile/long.txt": `${"a".repeat(50_000)}!\n`,
		"plain/notes.txt": "first\nsecond needle\nthird\n",
	});

	it("(a+)+$ on a 50,000-character line of a's leaves the event loop free and is abortable", async () => {
		const controller = new AbortController();
		const search = grepTool(root, { pattern: "(a+)+$", path: "hostile" }, controller.signal);
		const settled = search.then(
			() => "finished",
			() => "rejected",
		);
		expect(await Promise.race([settled, nextTimerTurn()])).toBe("free");
		expect(await Promise.race([settled, nextTimerTurn()])).toBe("free");
		controller.abort();
		await expect(search).rejects.toThrow(/abort/i);
	});

	it("a stuck search does not hold up another search started beside it", async () => {
		const controller = new AbortController();
		const stuck = grepTool(root, { pattern: "(a+)+$", path: "hostile" }, controller.signal);
		const stuckSettled = stuck.then(
			() => "finished",
			() => "rejected",
		);
		expect(await Promise.race([stuckSettled, nextTimerTurn()])).toBe("free");
		const other = splitResult(await grepTool(root, { pattern: "needle", path: "plain" }));
		expect(other.lines).toEqual(["notes.txt:2: second needle"]);
		// The stuck one was still running all along.
		expect(await Promise.race([stuckSettled, nextTimerTurn()])).toBe("free");
		controller.abort();
		await expect(stuck).rejects.toThrow(/abort/i);
	});
});

describe("JavaScript regex syntax, whichever engine runs the search", () => {
	const root = temporaryDirectory();
	writeTree(root, {
		"a.txt": ["foobar", "bazbar", "aa bb", "ab cd", "price: 42 EUR", "x=1;y=2"].join("\n"),
	});

	const lines = async (pattern: string): Promise<string[]> => splitResult(await grepTool(root, { pattern })).lines;

	it("lookbehind and lookahead", async () => {
		expect(await lines("(?<=foo)bar")).toEqual(["a.txt:1: foobar"]);
		expect(await lines("(?<!foo)bar")).toEqual(["a.txt:2: bazbar"]);
		expect(await lines("\\d+(?= EUR)")).toEqual(["a.txt:5: price: 42 EUR"]);
	});

	it("backreferences and named groups", async () => {
		expect(await lines("(\\w)\\1 (\\w)\\2")).toEqual(["a.txt:3: aa bb"]);
		expect(await lines("(?<key>[a-z])=\\d;\\k<key>")).toEqual([]);
		expect(await lines("(?<key>[a-z])=\\d;(?!\\k<key>)[a-z]")).toEqual(["a.txt:6: x=1;y=2"]);
	});
});
