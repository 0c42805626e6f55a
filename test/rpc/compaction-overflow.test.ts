import { describe, expect, it } from "vitest";
import { type ScriptedReply, textReply } from "../support/llm-server.js";
import type { RpcRecord } from "../support/rpc-process.js";
import {
	COMPACTION_PREAMBLE,
	compactionRecords,
	conversationRequests,
	expectedCompaction,
	getEntries,
	manyLines,
	numberedTranscript,
	plannerRequests,
	rangeRecords,
	scriptServer,
	userEntryId,
} from "./compaction-helpers.js";
import { startAgent, transcript, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

const OVERFLOW_TEXT = "prompt is too long: 250000 tokens > 200000 maximum";
const OVERFLOW: ScriptedReply = { status: 400, errorMessage: OVERFLOW_TEXT };
const OVERFLOW_ERROR = `400 {"type":"error","error":{"type":"invalid_request_error","message":"${OVERFLOW_TEXT}"}}`;
const RANGES: [number, number][] = [[3, 13]];

/** The run-level records of a prompt, in order, with assistant message ends as `message_end:<stopReason>`. */
function lifecycle(records: readonly RpcRecord[]): string[] {
	const names: string[] = [];
	for (const record of records) {
		if (record.type === "message_end") {
			const message = record.message as { role: string; stopReason?: string };
			if (message.role === "assistant") names.push(`message_end:${message.stopReason}`);
		} else if (/^(agent_start|agent_end|agent_settled|compaction_start|compaction_end|response)$/.test(record.type)) {
			names.push(record.type === "compaction_end" ? `compaction_end:${String(record.reason)}` : record.type);
		}
	}
	return names;
}

describe("overflow recovery", () => {
	it("compacts and retries the prompt when the provider reports an overflow", async () => {
		const { agent } = await startAgent(harness.server, { sessions: true });
		const script = scriptServer(harness.server, () => textReply(rangeRecords(RANGES)));
		script.conversation.push(textReply(manyLines("one")), textReply(manyLines("two")));
		await agent.prompt("first");
		await agent.prompt("second");
		script.conversation.push(OVERFLOW, textReply("the answer after compaction"));

		const start = agent.mark();
		const { settled } = await agent.prompt("third");
		expect(settled).toEqual({ type: "agent_settled" });
		expect(lifecycle(agent.since(start))).toEqual([
			"response",
			"agent_start",
			"message_end:error",
			"agent_end",
			"compaction_start",
			"compaction_end:overflow",
			"agent_start",
			"message_end:stop",
			"agent_end",
			"agent_settled",
		]);
		expect(agent.since(start, "message_end").at(1)?.message).toMatchObject({ errorMessage: OVERFLOW_ERROR });

		const [planner] = plannerRequests(harness.server);
		if (!planner) throw new Error("no planner request");
		const expected = expectedCompaction(numberedTranscript(planner), RANGES);
		const { entries } = await getEntries(agent);
		expect(compactionRecords(agent, start)).toEqual([
			{ type: "compaction_start", reason: "overflow" },
			{
				type: "compaction_end",
				reason: "overflow",
				result: expect.objectContaining({
					compactedText: expected.text,
					firstKeptEntryId: userEntryId(entries, "third"),
					rung: "planned",
					backupPath: expect.stringMatching(/\.overflow-auto-compact\.bak$/),
				}),
				aborted: false,
				willRetry: true,
			},
		]);
		// The retried request carries the compacted text and the kept prompt, once, and nothing after it.
		const retried = conversationRequests(harness.server).at(-1);
		expect(transcript(retried)).toEqual([`user: ${COMPACTION_PREAMBLE}\n\n${expected.text}\n\n[User]: third`]);
		expect(await agent.ok({ type: "get_last_assistant_text" })).toEqual({ text: "the answer after compaction" });
		expect(await agent.ok({ type: "get_state" })).toMatchObject({ isStreaming: false, isCompacting: false });
	});

	it("gives up when the retried prompt overflows again", async () => {
		const { agent } = await startAgent(harness.server);
		const script = scriptServer(harness.server, () => textReply(rangeRecords(RANGES)));
		script.conversation.push(textReply(manyLines("one")), textReply(manyLines("two")));
		await agent.prompt("first");
		await agent.prompt("second");
		script.conversation.push(OVERFLOW, OVERFLOW, OVERFLOW, textReply("never sent"));
		const requestsBefore = conversationRequests(harness.server).length;

		const start = agent.mark();
		await agent.prompt("third");
		expect(lifecycle(agent.since(start))).toEqual([
			"response",
			"agent_start",
			"message_end:error",
			"agent_end",
			"compaction_start",
			"compaction_end:overflow",
			"agent_start",
			"message_end:error",
			"agent_end",
			"compaction_end:overflow",
			"agent_settled",
		]);
		const ends = agent.since(start, "compaction_end");
		expect(ends[0]).toMatchObject({ reason: "overflow", aborted: false, willRetry: true, result: { rung: "planned" } });
		expect(ends[1]).toEqual({
			type: "compaction_end",
			reason: "overflow",
			result: null,
			aborted: false,
			willRetry: false,
			unresolvedOverflow: true,
			errorMessage: expect.stringContaining(OVERFLOW_TEXT),
		});
		expect(conversationRequests(harness.server).length - requestsBefore).toBe(2);
		expect(plannerRequests(harness.server)).toHaveLength(1);
		expect(await agent.ok({ type: "get_state" })).toMatchObject({ isStreaming: false, isCompacting: false });
	});

	it("falls back to dropping the region when the planner cannot help", async () => {
		const { agent } = await startAgent(harness.server);
		const script = scriptServer(harness.server, () => textReply("no ranges today"));
		script.conversation.push(textReply(manyLines("one")), textReply(manyLines("two")));
		await agent.prompt("first");
		await agent.prompt("second");
		script.conversation.push(OVERFLOW, textReply("fresh start"));
		const start = agent.mark();
		await agent.prompt("third");
		const { entries } = await getEntries(agent);
		expect(agent.since(start, "compaction_end")).toEqual([
			{
				type: "compaction_end",
				reason: "overflow",
				result: expect.objectContaining({
					compactedText: "(filtered 29 lines)",
					firstKeptEntryId: userEntryId(entries, "third"),
					rung: "fresh",
					stats: expect.objectContaining({ linesBefore: 29, linesDeleted: 29, linesKept: 0, rangeCount: 1 }),
				}),
				aborted: false,
				willRetry: true,
			},
		]);
		expect(transcript(conversationRequests(harness.server).at(-1))).toEqual([
			`user: ${COMPACTION_PREAMBLE}\n\n(filtered 29 lines)\n\n[User]: third`,
		]);
		expect(await agent.ok({ type: "get_last_assistant_text" })).toEqual({ text: "fresh start" });
	});

	it("reports an overflow with nothing to compact as unresolved and ends the run", async () => {
		const { agent } = await startAgent(harness.server);
		const script = scriptServer(harness.server);
		script.conversation.push(OVERFLOW, textReply("never sent"));
		const { start } = await agent.prompt("a huge first prompt");
		expect(agent.since(start, "compaction_end")).toEqual([
			{
				type: "compaction_end",
				reason: "overflow",
				result: null,
				aborted: false,
				willRetry: false,
				unresolvedOverflow: true,
				errorMessage: expect.any(String),
			},
		]);
		expect(agent.since(start, "agent_start")).toHaveLength(1);
		expect(harness.server.requests).toHaveLength(1);
		expect(agent.records.at(-1)).toEqual({ type: "agent_settled" });
	});
});
