import { describe, expect, it } from "vitest";
import { createFindTool } from "../../src/tools/find.js";
import { createGrepTool, type GrepToolInput } from "../../src/tools/grep.js";
import { temporaryDirectory, textOf, writeTree } from "./search-fixture.js";

/** Backtracks for hours on a line of a's that does not end in one: 2^34 ways to split 34 a's. */
const CATASTROPHIC = "(a+)+$";
const HOSTILE_LINE = `${"a".repeat(34)}!`;
/** A glob whose regex backtracks polynomially with 20 stars: for ever on a 40-character name. */
const HOSTILE_GLOB = `${"*a".repeat(20)}*b`;

const ignoreUpdate = () => undefined;

/** Resolves on the next timer turn: proves the event loop is free while a search runs. */
function nextTimerTurn(): Promise<"free"> {
	return new Promise((resolve) => setTimeout(() => resolve("free"), 20));
}

describe("searches whose cost the model controls", () => {
	const root = temporaryDirectory();
	writeTree(root, {
		"1-plain.txt": "aaaa\n",
		"2-hostile.txt": `${HOSTILE_LINE}\n`,
		[`${"a".repeat(40)}.txt`]: "",
	});
	const tool = (timeLimitMs: number) => createGrepTool({ cwd: root, searchTimeLimitMs: timeLimitMs });

	it("grep with a catastrophic regex leaves the event loop free and says it was cut short", async () => {
		const search = tool(1000).execute("call", { pattern: CATASTROPHIC }, new AbortController().signal, ignoreUpdate);
		// The search is still stuck in the regex when the timer fires.
		expect(await Promise.race([search.then(() => "done"), nextTimerTurn()])).toBe("free");
		const result = await search;
		expect(textOf(result)).toBe(
			[
				"1-plain.txt:1: aaaa",
				"",
				"[Search stopped after 1 s (time limit); results are incomplete. Narrow the path or glob, or simplify the pattern]",
			].join("\n"),
		);
		expect(result.details).toEqual({ timeLimitReached: 1 });
	});

	it("stops a stuck grep at once on abort, and the next search works", async () => {
		const controller = new AbortController();
		const args: GrepToolInput = { pattern: CATASTROPHIC, path: "2-hostile.txt" };
		const search = tool(60_000).execute("call", args, controller.signal, ignoreUpdate);
		expect(await nextTimerTurn()).toBe("free");
		controller.abort();
		await expect(search).rejects.toThrow("This operation was aborted");
		const next = await tool(60_000).execute("call", { pattern: "^a+$" }, new AbortController().signal, ignoreUpdate);
		expect(textOf(next)).toBe("1-plain.txt:1: aaaa");
	});

	it("says when nothing was found before the time limit", async () => {
		const args: GrepToolInput = { pattern: CATASTROPHIC, path: "2-hostile.txt" };
		const result = await tool(500).execute("call", args, new AbortController().signal, ignoreUpdate);
		expect(textOf(result)).toMatch(/^No matches found\n\n\[Search stopped after 1 s \(time limit\)/);
		expect(result.details).toEqual({ timeLimitReached: 1 });
	});

	it("grep and find with a hostile glob are stopped by the time limit", async () => {
		const grep = await tool(500).execute(
			"call",
			{ pattern: "x", glob: HOSTILE_GLOB },
			new AbortController().signal,
			ignoreUpdate,
		);
		expect(textOf(grep)).toMatch(/^No matches found\n\n\[Search stopped after 1 s/);
		const find = createFindTool({ cwd: root, searchTimeLimitMs: 500 });
		const pending = find.execute("call", { pattern: HOSTILE_GLOB }, new AbortController().signal, ignoreUpdate);
		expect(await Promise.race([pending.then(() => "done"), nextTimerTurn()])).toBe("free");
		const result = await pending;
		expect(textOf(result)).toMatch(/^No files found matching pattern\n\n\[Search stopped after 1 s/);
		expect(result.details).toEqual({ timeLimitReached: 1 });
	});
});
