/**
 * Automatic compaction in process: not while it is off, before a prompt when the last reply is
 * already over the threshold, and between a run's tool calls. The RPC test
 * (test/rpc/compaction-auto.test.ts) keeps the record order a client sees around a compaction,
 * requests answered while it runs, aborts and a manual compact taking over.
 */
import { describe, expect, it } from "vitest";
import { COMPACTION_PREAMBLE, type ReplyFor } from "../support/compaction-script.js";
import { textReply, toolReply } from "../support/llm-server.js";
import type { ScriptedCall } from "../support/scripted-stream.js";
import {
	compactionEvents,
	conversationCalls,
	plannerCalls,
	position,
	startCompacting,
	threeTurns,
} from "./compaction-helpers.js";
import { sentLines } from "./helpers.js";

/** Threshold: more than 5000 - 1000 = 4000 context tokens. */
const SMALL_WINDOW = 5000;
const THRESHOLD_SETTINGS = { compaction: { reserveTokens: 1000 } };
const OVER_THRESHOLD = { usage: { input: 4500, output: 100 } };

/** Three turns, then a reply over the threshold while automatic compaction was off; it is on again after. */
async function lastReplyOverThreshold(planner?: ReplyFor<ScriptedCall>) {
	const started = startCompacting(SMALL_WINDOW, THRESHOLD_SETTINGS, planner);
	await threeTurns(started);
	started.session.setAutoCompaction(false);
	started.script.conversation.push(textReply("four", OVER_THRESHOLD));
	await started.session.prompt("fourth");
	expect(plannerCalls(started)).toEqual([]);
	started.session.setAutoCompaction(true);
	return started;
}

/**
 * Three turns of history, then a prompt whose tool call prints `seq 1 4000` (~4800 tokens), over
 * the 2000-token threshold while the history is far below it.
 */
async function toolOutputOverThreshold(planner?: ReplyFor<ScriptedCall>) {
	const started = startCompacting(10_000, { compaction: { reserveTokens: 8000 } }, planner);
	await threeTurns(started);
	const small = { usage: { input: 300, output: 20 } };
	started.script.conversation.push(
		toolReply("bash", { command: "seq 1 4000" }, small),
		textReply("counted to 4000", small),
	);
	return started;
}

describe("automatic compaction", () => {
	it("does not compact once it is switched off", async () => {
		const started = startCompacting(SMALL_WINDOW, THRESHOLD_SETTINGS);
		await threeTurns(started);
		started.session.setAutoCompaction(false);
		started.script.conversation.push(textReply("four", OVER_THRESHOLD));
		const from = started.events.length;
		await started.session.prompt("fourth");
		expect(compactionEvents(started, from)).toEqual([]);
		expect(plannerCalls(started)).toEqual([]);
		expect(started.session.getState()).toMatchObject({ autoCompactionEnabled: false, isCompacting: false });
		expect(started.session.getSessionStats()).toMatchObject({
			contextUsage: { tokens: 4600, contextWindow: SMALL_WINDOW, percent: 92 },
		});
	});

	it("compacts before the next prompt when the last reply is already above the threshold", async () => {
		const started = await lastReplyOverThreshold();
		started.script.conversation.push(textReply("five"));
		const from = started.events.length;
		await started.session.prompt("fifth");
		expect(compactionEvents(started, from)).toMatchObject([
			{ type: "compaction_start", reason: "threshold" },
			{ type: "compaction_end", reason: "threshold", aborted: false, willRetry: false },
		]);
		// The compaction comes before the prompt's run, and the prompt is sent with the compacted context.
		expect(position(started, from, "compaction_end")).toBeLessThan(position(started, from, "agent_start"));
		expect(plannerCalls(started)).toHaveLength(1);
		const sent = sentLines(conversationCalls(started).at(-1));
		expect(sent[0]?.startsWith(`user: ${COMPACTION_PREAMBLE}`)).toBe(true);
		expect(sent.at(-1)).toBe("user: fifth");
		// The reply to "fifth" is small: no second compaction after it.
		expect(started.of("compaction_start", from)).toHaveLength(1);
	});

	it("compacts between a run's tool calls and its next request when the tool output crosses the threshold", async () => {
		const started = await toolOutputOverThreshold();
		const from = started.events.length;
		await started.session.prompt("count to 4000");
		expect(compactionEvents(started, from)).toMatchObject([
			{ type: "compaction_start", reason: "threshold", midTurn: true },
			{ type: "compaction_end", reason: "threshold", aborted: false, willRetry: false, result: expect.any(Object) },
		]);
		// Within the one run: after the tool turn ended, before the next turn started.
		const compactionStart = position(started, from, "compaction_start");
		expect(position(started, from, "turn_end")).toBeLessThan(compactionStart);
		expect(position(started, compactionStart, "turn_start")).toBeGreaterThan(position(started, from, "compaction_end"));
		expect(started.of("agent_start", from)).toHaveLength(1);
		expect(started.of("agent_end", from)).toHaveLength(1);
		// The next call carries the compacted context: the boundary message, which replays the kept
		// entries (this turn's tool call and its output) as transcript text.
		const sent = sentLines(conversationCalls(started).at(-1));
		expect(sent).toHaveLength(1);
		const [context] = sent;
		expect(context?.startsWith(`user: ${COMPACTION_PREAMBLE}`)).toBe(true);
		expect(context).toContain('[User]: count to 4000\n\n[Assistant tool calls]: bash(command="seq 1 4000")');
		expect(context).toContain("\n3999\n4000");
		expect(plannerCalls(started)).toHaveLength(1);
		expect(started.session.getLastAssistantText()).toBe("counted to 4000");
	});
});
