/**
 * The compact operation in process: the parameters reach the planner's request, a reply that is
 * not a list of ranges and a cancelled compaction write nothing. The RPC test
 * (test/rpc/compact-command.test.ts) keeps the command's own shapes and refusals.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import { type Started, sentLines, startSession } from "./helpers.js";

const THIRTY_LINES = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`).join("\n");

/** Two exchanges: a 30-line prompt answered "ok", then "second" answered "done" (usage 1000 in, 10 out). */
async function twoExchanges(started: Started): Promise<void> {
	started.stream.push(textReply("ok"), textReply("done", { usage: { input: 1000, output: 10 } }));
	await started.session.prompt(THIRTY_LINES);
	await started.session.prompt("second");
}

function sessionFile(started: Started): string {
	const file = started.session.getState().sessionFile;
	if (!file) throw new Error("the session has no file");
	return file;
}

/** The compaction result of `compact()`, or the message it rejected with. */
async function outcome(promise: Promise<unknown>): Promise<unknown> {
	return promise.then(
		(result) => result,
		(error: unknown) => (error instanceof Error ? error.message : error),
	);
}

describe("compact", () => {
	it("takes its parameters from the call", async () => {
		const started = startSession();
		await twoExchanges(started);
		started.stream.push(textReply("3,30"));
		const result = await started.session.compact({ compression_ratio: 0.25, preserve_recent: 0, query: "focus" });
		expect(result.parameters).toEqual({ compression_ratio: 0.25, preserve_recent: 0, query: "focus" });
		expect(result.firstKeptEntryId).toBeNull();
		expect(result.stats).toMatchObject({ linesBefore: 36, linesDeleted: 28 });
		const request = sentLines(started.stream.calls[2])[0] ?? "";
		expect(request).toContain("- Target lines to keep: 9\n");
		expect(request).toContain("- Relevance focus: focus\n");
		expect(request).toContain("36\u2192[Assistant]: done\n</numbered-transcript>");
	});

	it("reports a reply that is not a list of ranges, and writes nothing", async () => {
		const started = startSession();
		await twoExchanges(started);
		const file = sessionFile(started);
		const fileBefore = readFileSync(file, "utf8");
		started.stream.push(textReply("Sure! Delete lines 2 to 10."));
		const from = started.events.length;
		const error = "Compaction failed: the model's reply was not a list of line ranges";
		expect(await outcome(started.session.compact())).toBe(error);
		expect(started.of("compaction_end", from)).toEqual([
			{ type: "compaction_end", reason: "manual", result: null, aborted: false, willRetry: false, errorMessage: error },
		]);
		expect(readFileSync(file, "utf8")).toBe(fileBefore);
		expect(started.session.getState()).toMatchObject({ messageCount: 4, isCompacting: false });
	});

	it.each([
		["abortCompaction", (started: Started) => void started.session.abortCompaction()],
		["abort", (started: Started) => void started.session.abort()],
	])("%s cancels a compaction in progress and writes nothing", async (_name, cancel) => {
		const started = startSession();
		await twoExchanges(started);
		// The planner's answer would come long after the test: only the cancellation ends it.
		started.stream.push({ ...textReply("2,10"), headersDelayMs: 60_000 });
		const from = started.events.length;
		const compacting = outcome(started.session.compact());
		await started.next((event) => event.type === "compaction_start", from);
		cancel(started);
		expect(await compacting).toBe("Compaction cancelled");
		expect(started.of("compaction_end", from)).toEqual([
			{ type: "compaction_end", reason: "manual", result: null, aborted: true, willRetry: false },
		]);
		expect(started.session.getState()).toMatchObject({ isCompacting: false, messageCount: 4 });
		const file = sessionFile(started);
		expect(existsSync(file)).toBe(true);
		expect(readFileSync(file, "utf8")).not.toContain('"type":"compaction"');
	});
});
