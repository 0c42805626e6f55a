import { describe, expect, it } from "vitest";
import { type RecordedRequest, textReply, toolReply } from "../support/llm-server.js";
import type { RpcAgent, RpcRecord } from "../support/rpc-process.js";
import {
	COMPACTION_PREAMBLE,
	compactionRecords,
	conversationRequests,
	deferred,
	expectedCompaction,
	getEntries,
	heldPlanner,
	isPlannerRequest,
	manyLines,
	numberedTranscript,
	plannerRequests,
	type ReplyFor,
	type RequestScript,
	rangeRecords,
	scriptServer,
	threeTurns,
	userEntryId,
	withContextWindow,
} from "./compaction-helpers.js";
import { anthropicBody, indexOf, startAgent, transcript, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

/** Threshold: more than 5000 - 1000 = 4000 context tokens. */
const SMALL_WINDOW = 5000;
const THRESHOLD_SETTINGS = { compaction: { reserveTokens: 1000 } };
const OVER_THRESHOLD = { usage: { input: 4500, output: 100 } };

function position(agent: RpcAgent, start: number, predicate: (record: RpcRecord) => boolean): number {
	const index = indexOf(agent, predicate, start);
	if (index < 0) throw new Error("record not found");
	return index;
}

const isType = (type: string) => (record: RpcRecord) => record.type === type;

/** Input tokens as a provider would count them for this request: its messages' JSON, 4 characters a token. */
function inputTokensOf(request: RecordedRequest): number {
	return Math.ceil(JSON.stringify(anthropicBody(request).messages).length / 4);
}

// Not compacting while it is off, compacting before a prompt and between a run's tool calls are
// checked in process: test/runtime/compaction-auto.test.ts.
describe("automatic compaction", () => {
	it("compacts after a reply whose usage crosses the threshold, before the prompt settles", async () => {
		const { agent } = await startAgent(
			harness.server,
			withContextWindow(harness.server, SMALL_WINDOW, { sessions: true, settings: THRESHOLD_SETTINGS }),
		);
		const { arrived, planner } = heldPlanner(1500);
		const script = scriptServer(harness.server, planner);
		script.conversation.push(textReply(manyLines("one")), textReply(manyLines("two")));
		await agent.prompt("first");
		await agent.prompt("second");
		expect(plannerRequests(harness.server)).toEqual([]);

		script.conversation.push(textReply("three", OVER_THRESHOLD));
		const start = agent.mark();
		await agent.request({ type: "prompt", message: "third" });
		await agent.waitForEvent("compaction_start", () => true, start);
		await arrived;
		// get_state is answered at once, while the planner request is still waiting for its answer.
		expect(await agent.ok({ type: "get_state" })).toMatchObject({ isCompacting: true, isStreaming: true });
		const settled = await agent.waitForEvent("agent_settled", () => true, start);
		expect(settled).toEqual({ type: "agent_settled" });

		const { entries } = await getEntries(agent);
		const records = compactionRecords(agent, start);
		expect(records).toEqual([
			{ type: "compaction_start", reason: "threshold" },
			{
				type: "compaction_end",
				reason: "threshold",
				result: expect.objectContaining({
					firstKeptEntryId: userEntryId(entries, "third"),
					tokensBefore: 4600,
					rung: "planned",
					backupPath: expect.stringMatching(/\.auto-compact\.bak$/),
				}),
				aborted: false,
				willRetry: false,
			},
		]);
		const agentEnd = position(agent, start, isType("agent_end"));
		const compactionStart = position(agent, start, isType("compaction_start"));
		const compactionEnd = position(agent, start, isType("compaction_end"));
		const settledAt = position(agent, start, isType("agent_settled"));
		expect(agentEnd).toBeLessThan(compactionStart);
		expect(compactionEnd).toBeLessThan(settledAt);
		expect(agent.since(start, "agent_start")).toHaveLength(1);
		expect(await agent.ok({ type: "get_state" })).toMatchObject({ isCompacting: false, isStreaming: false });
		expect(entries.at(-1)).toMatchObject({ type: "compaction", details: { strategy: "verbatim-lines" } });
		// pi's clients read the compacted text of an automatic compaction as result.summary.
		const result = agent.since(start, "compaction_end")[0]?.result as { summary?: string; compactedText?: string };
		expect(result.summary).toEqual(expect.any(String));
		expect(result.summary).toBe(result.compactedText);
		expect(entries.at(-1)).toMatchObject({ summary: result.summary });
	});

	it("compacts after a run whose tool output pushed the context over the threshold", async () => {
		// Threshold 2000 tokens: the prompt alone is far below, `seq 1 3000` (2000 kept lines) far above.
		const { agent } = await startAgent(
			harness.server,
			withContextWindow(harness.server, 10_000, {
				settings: { compaction: { reserveTokens: 8000, preserve_recent: 1 } },
			}),
		);
		let ranges: [number, number][] = [];
		harness.server.onRequest((request) => {
			if (isPlannerRequest(request)) {
				const lines = numberedTranscript(request);
				// Delete the output after its first line, up to its last three numbers.
				const outputStart = lines.indexOf("[Tool result]: 1001") + 1;
				const outputEnd = lines.indexOf("3000") + 1;
				ranges = [[outputStart + 1, outputEnd - 3]];
				return textReply(rangeRecords(ranges));
			}
			const usage = { input: inputTokensOf(request), output: 20 };
			return conversationRequests(harness.server).length === 1
				? toolReply("bash", { command: "seq 1 3000" }, { usage })
				: textReply("counted to 3000", { usage });
		});
		const { start } = await agent.prompt("count to 3000");

		const [first, second] = conversationRequests(harness.server);
		if (!first || !second) throw new Error("expected two conversation requests");
		expect(inputTokensOf(first)).toBeLessThan(2000);
		expect(inputTokensOf(second)).toBeGreaterThan(2000);
		const [planner] = plannerRequests(harness.server);
		if (!planner) throw new Error("no planner request");
		const lines = numberedTranscript(planner);
		expect(lines.slice(0, 5)).toEqual([
			"[User]: count to 3000",
			"",
			'[Assistant tool calls]: bash(command="seq 1 3000")',
			"",
			"[Tool result]: 1001",
		]);
		const expected = expectedCompaction(lines, ranges);
		const { entries } = await getEntries(agent);
		const finalReply = entries.filter((entry) => entry.type === "message").at(-1);
		expect(finalReply?.message?.role).toBe("assistant");
		expect(compactionRecords(agent, start)).toEqual([
			{ type: "compaction_start", reason: "threshold" },
			{
				type: "compaction_end",
				reason: "threshold",
				result: expect.objectContaining({
					compactedText: expected.text,
					firstKeptEntryId: finalReply?.id,
					parameters: { compression_ratio: 0.5, preserve_recent: 1, query: "count to 3000" },
					stats: expect.objectContaining({ linesDeleted: expected.linesDeleted, rangeCount: 1 }),
				}),
				aborted: false,
				willRetry: false,
			},
		]);
		expect(position(agent, start, isType("agent_end"))).toBeLessThan(
			position(agent, start, isType("compaction_start")),
		);
		expect(expected.text).toContain("\n(filtered 1996 lines)\n");
	});

	it("delivers a follow-up sent during the compaction once it is done", async () => {
		const { agent } = await startAgent(
			harness.server,
			withContextWindow(harness.server, SMALL_WINDOW, { settings: THRESHOLD_SETTINGS }),
		);
		const { arrived, planner } = heldPlanner(1000);
		const script = scriptServer(harness.server, planner);
		await threeTurns(agent, script);
		script.conversation.push(textReply("four", OVER_THRESHOLD), textReply("follow-up answer"));
		const start = agent.mark();
		await agent.request({ type: "prompt", message: "fourth" });
		await agent.waitForEvent("compaction_start", () => true, start);
		await arrived;
		const queued = await agent.request({
			id: "fu",
			type: "prompt",
			message: "after it",
			streamingBehavior: "followUp",
		});
		expect(queued).toEqual({
			id: "fu",
			type: "response",
			command: "prompt",
			success: true,
			data: { disposition: "queued" },
		});
		await agent.waitForEvent("agent_settled", () => true, start);

		expect(agent.since(start, "agent_settled")).toHaveLength(1);
		expect(agent.since(start, "compaction_end")).toMatchObject([{ reason: "threshold", aborted: false }]);
		const compactionEnd = position(agent, start, isType("compaction_end"));
		const secondStart = indexOf(agent, isType("agent_start"), position(agent, start, isType("agent_end")) + 1);
		expect(secondStart).toBeGreaterThan(compactionEnd);
		const last = conversationRequests(harness.server).at(-1);
		const sent = transcript(last);
		expect(sent[0]?.startsWith(`user: ${COMPACTION_PREAMBLE}`)).toBe(true);
		expect(sent.at(-1)).toBe("user: after it");
		expect(await agent.ok({ type: "get_last_assistant_text" })).toEqual({ text: "follow-up answer" });
	});

	it("abort cancels an automatic compaction and the prompt settles", async () => {
		const { agent } = await startAgent(
			harness.server,
			withContextWindow(harness.server, SMALL_WINDOW, { settings: THRESHOLD_SETTINGS }),
		);
		const { arrived, planner } = heldPlanner(2000);
		const script = scriptServer(harness.server, planner);
		await threeTurns(agent, script);
		const before = await getEntries(agent);
		script.conversation.push(textReply("four", OVER_THRESHOLD));
		const start = agent.mark();
		await agent.request({ type: "prompt", message: "fourth" });
		await agent.waitForEvent("compaction_start", () => true, start);
		await arrived;
		// A prompt without streamingBehavior is refused while the compaction runs.
		expect(await agent.request({ id: "busy", type: "prompt", message: "now" })).toEqual({
			id: "busy",
			type: "response",
			command: "prompt",
			success: false,
			error: "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.",
		});
		await agent.ok({ type: "abort" });
		await agent.waitForEvent("agent_settled", () => true, start);
		expect(compactionRecords(agent, start)).toEqual([
			{ type: "compaction_start", reason: "threshold" },
			{ type: "compaction_end", reason: "threshold", result: null, aborted: true, willRetry: false },
		]);
		const after = await getEntries(agent);
		expect(after.entries.length).toBe(before.entries.length + 2);
		expect(after.entries.map((entry) => entry.type)).not.toContain("compaction");
		expect(await agent.ok({ type: "get_state" })).toMatchObject({ isCompacting: false, isStreaming: false });
	});

	// A manual compact takes over from an automatic one: it aborts it and runs its own.
	it("a manual compact takes over from a running automatic compaction", async () => {
		const { agent } = await startAgent(
			harness.server,
			withContextWindow(harness.server, SMALL_WINDOW, { settings: THRESHOLD_SETTINGS }),
		);
		const arrived = deferred();
		const script = scriptServer(harness.server, (_request, index) => {
			if (index === 0) arrived.resolve();
			return textReply("1,10\n", { headersDelayMs: index === 0 ? 2000 : 0 });
		});
		await threeTurns(agent, script);
		script.conversation.push(textReply("four", OVER_THRESHOLD));
		const start = agent.mark();
		await agent.request({ type: "prompt", message: "fourth" });
		await agent.waitForEvent("compaction_start", () => true, start);
		await arrived.promise;
		const data = (await agent.ok({ type: "compact" })) as { summary: string; compactedText: string };
		expect(data.summary).toBe(data.compactedText);
		await agent.waitForEvent("agent_settled", () => true, start);
		expect(compactionRecords(agent, start)).toEqual([
			{ type: "compaction_start", reason: "threshold" },
			{ type: "compaction_end", reason: "threshold", result: null, aborted: true, willRetry: false },
			{ type: "compaction_start", reason: "manual" },
			{ type: "compaction_end", reason: "manual", result: data, aborted: false, willRetry: false },
		]);
	});

	/** Three turns, then a reply over the threshold while automatic compaction was off; it is on again after. */
	async function lastReplyOverThreshold(planner?: ReplyFor): Promise<{ agent: RpcAgent; script: RequestScript }> {
		const { agent } = await startAgent(
			harness.server,
			withContextWindow(harness.server, SMALL_WINDOW, { sessions: true, settings: THRESHOLD_SETTINGS }),
		);
		const script = scriptServer(harness.server, planner);
		await threeTurns(agent, script);
		await agent.ok({ type: "set_auto_compaction", enabled: false });
		script.conversation.push(textReply("four", OVER_THRESHOLD));
		await agent.prompt("fourth");
		expect(plannerRequests(harness.server)).toEqual([]);
		await agent.ok({ type: "set_auto_compaction", enabled: true });
		return { agent, script };
	}

	/** Sends `message` while the planner request is held, aborts once it arrived; resolves at agent_settled. */
	async function abortDuringPlanner(agent: RpcAgent, arrived: Promise<void>, message: string): Promise<number> {
		const start = agent.mark();
		await agent.ok({ type: "prompt", message });
		await arrived;
		await agent.ok({ type: "abort" });
		await agent.waitForEvent("agent_settled", () => true, start);
		return start;
	}

	/**
	 * Three turns of history, then a prompt whose tool call prints `seq 1 4000` (~4800 tokens), over
	 * the 2000-token threshold while the history is far below it.
	 */
	async function toolOutputOverThreshold(planner?: ReplyFor): Promise<RpcAgent> {
		const { agent } = await startAgent(
			harness.server,
			withContextWindow(harness.server, 10_000, { settings: { compaction: { reserveTokens: 8000 } } }),
		);
		const script = scriptServer(harness.server, planner);
		await threeTurns(agent, script);
		const small = { usage: { input: 300, output: 20 } };
		script.conversation.push(toolReply("bash", { command: "seq 1 4000" }, small), textReply("counted to 4000", small));
		return agent;
	}

	it("an abort during a compaction between tool calls cancels it and ends the run", async () => {
		const { arrived, planner } = heldPlanner(5000);
		const agent = await toolOutputOverThreshold(planner);
		const requestsBefore = conversationRequests(harness.server).length;
		const start = await abortDuringPlanner(agent, arrived, "count to 4000");
		expect(compactionRecords(agent, start)).toMatchObject([
			{ type: "compaction_start", reason: "threshold", midTurn: true },
			{ type: "compaction_end", reason: "threshold", result: null, aborted: true },
		]);
		const end = agent.since(start, "agent_end");
		expect(end).toHaveLength(1);
		const messages = end[0]?.messages as { role: string; stopReason?: string }[];
		expect(messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
		// Only the request that produced the tool call: nothing was sent after the compaction.
		expect(conversationRequests(harness.server)).toHaveLength(requestsBefore + 1);
	});

	it("an abort during the compaction before a prompt ends that prompt too", async () => {
		const { arrived, planner } = heldPlanner(5000);
		const { agent } = await lastReplyOverThreshold(planner);
		const requestsBefore = conversationRequests(harness.server).length;
		const start = await abortDuringPlanner(agent, arrived, "fifth");
		expect(compactionRecords(agent, start)).toMatchObject([
			{ type: "compaction_start", reason: "threshold" },
			{ type: "compaction_end", reason: "threshold", result: null, aborted: true },
		]);
		const end = agent.since(start, "agent_end");
		expect(end).toHaveLength(1);
		expect(end[0]?.messages).toMatchObject([
			{ role: "user", content: [{ type: "text", text: "fifth" }] },
			{ role: "assistant", stopReason: "aborted" },
		]);
		expect(conversationRequests(harness.server)).toHaveLength(requestsBefore);
	});
});
