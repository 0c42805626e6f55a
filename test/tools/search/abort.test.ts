import { beforeAll, describe, expect, it } from "vitest";
import { temporaryDirectory, writeTree } from "../search-fixture.js";
import { findTool, grepTool, splitResult } from "./search-calls.js";

// This file runs in a process of its own (vitest.config.ts), which keeps the CPU time below about
// this file's searches alone.

/**
 * `[a-z]*\d` on a line of 4,000 letters tries every start and backtracks over the rest of the line:
 * milliseconds per line, so the tree below (40 files of 50 such lines) takes seconds to search in
 * full. Only the last line of the last file matches, so a search that ran to its end would answer.
 */
const SLOW_PATTERN = "[a-z]*\\d";
const LETTERS = "a".repeat(4000);
const FILES = 40;
const LINES_PER_FILE = 50;

/** A glob whose regex backtracks for ever on a 40-character name (as in hostile-search.test.ts). */
const HOSTILE_GLOB = `${"*a".repeat(20)}*b`;

function slowTree(root: string): void {
	const files: Record<string, string> = {};
	for (let index = 0; index < FILES; index++) {
		const lines = Array.from({ length: LINES_PER_FILE }, () => LETTERS);
		if (index === FILES - 1) lines.push("the end 1");
		files[`tree/part-${String(index % 4)}/file-${String(index).padStart(2, "0")}.txt`] = `${lines.join("\n")}\n`;
	}
	files["small/needle.txt"] = "one\nneedle two\nthree\n";
	files[`small/${"a".repeat(40)}.txt`] = "";
	writeTree(root, files);
}

/** Resolves on the next timer turn: the event loop is free while a search runs. */
function nextTimerTurn(): Promise<"free"> {
	return new Promise((resolve) => setTimeout(() => resolve("free"), 20));
}

/** CPU time (user + system, ms) this process spends over `windowMs` of waiting: all its threads. */
async function cpuWhileIdle(windowMs: number): Promise<number> {
	const before = process.cpuUsage();
	await new Promise((resolve) => setTimeout(resolve, windowMs));
	const used = process.cpuUsage(before);
	return (used.user + used.system) / 1000;
}

describe("aborting a grep of a big tree", () => {
	const root = temporaryDirectory();
	beforeAll(() => slowTree(root));

	it("ends the search, which had not finished; no search keeps running and the next one answers", async () => {
		const controller = new AbortController();
		const search = grepTool(root, { pattern: SLOW_PATTERN, path: "tree" }, controller.signal);
		const settled = search.then(
			() => "finished",
			() => "rejected",
		);
		expect(await Promise.race([settled, nextTimerTurn()])).toBe("free");
		controller.abort();
		// A search that had run to its end would have answered with the last file's line.
		await expect(search).rejects.toThrow(/abort/i);

		// A search still running on some thread would keep a core busy for the whole window.
		const windowMs = 600;
		expect(await cpuWhileIdle(windowMs)).toBeLessThan(windowMs * 0.5);

		const next = splitResult(await grepTool(root, { pattern: "needle", path: "small" }));
		expect(next.lines).toEqual(["needle.txt:2: needle two"]);
		expect(next.notice).toBe("");
	});

	it("an aborted find with a hostile glob ends too, and the next find answers", async () => {
		const controller = new AbortController();
		const search = findTool(root, { pattern: HOSTILE_GLOB, path: "small" }, controller.signal);
		const settled = search.then(
			() => "finished",
			() => "rejected",
		);
		expect(await Promise.race([settled, nextTimerTurn()])).toBe("free");
		controller.abort();
		await expect(search).rejects.toThrow(/abort/i);
		expect(splitResult(await findTool(root, { pattern: "*.txt", path: "small" })).lines).toEqual([
			`${"a".repeat(40)}.txt`,
			"needle.txt",
		]);
	});

	it("a search aborted before it starts rejects at once", async () => {
		const controller = new AbortController();
		controller.abort();
		await expect(grepTool(root, { pattern: "needle" }, controller.signal)).rejects.toThrow(/abort/i);
	});
});
