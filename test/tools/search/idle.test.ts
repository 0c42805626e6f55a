import { existsSync, readdirSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { temporaryDirectory, writeTree } from "../search-fixture.js";
import { findTool, grepTool, splitResult } from "./search-calls.js";

/** The process's threads (Linux): a search worker is one, so a new worker shows up as a new id. */
function threadIds(): string[] {
	return readdirSync("/proc/self/task");
}

/** A long think of the model between two searches: far longer than any idle stop a search engine had. */
const LONG_IDLE_MS = 10 * 60_000;

describe.skipIf(!existsSync("/proc/self/task"))("a search after a long idle", () => {
	const root = temporaryDirectory();
	writeTree(root, { "a.txt": "alpha needle\n", "b/c.txt": "gamma\nneedle delta\n" });

	afterEach(() => {
		vi.useRealTimers();
	});

	it("is served by the same search thread as the search before it: no new worker to start", async () => {
		// Every timer of this thread is the test's: the idle period passes at once.
		vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
		const first = splitResult(await grepTool(root, { pattern: "needle" }));
		expect(first.lines).toEqual(["a.txt:1: alpha needle", "b/c.txt:2: needle delta"]);
		const threadsAfterFirst = new Set(threadIds());

		vi.advanceTimersByTime(LONG_IDLE_MS);

		const second = splitResult(await grepTool(root, { pattern: "delta" }));
		expect(second.lines).toEqual(["b/c.txt:2: needle delta"]);
		const third = splitResult(await findTool(root, { pattern: "*.txt" }));
		expect(third.lines).toEqual(["a.txt", "b/c.txt"]);
		expect(threadIds().filter((id) => !threadsAfterFirst.has(id))).toEqual([]);
	});
});
