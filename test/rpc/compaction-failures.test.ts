import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import type { RpcAgent, RpcRecord } from "../support/rpc-process.js";
import {
	compactionRecords,
	getEntries,
	heldPlanner,
	plannerRequests,
	scriptServer,
	threeTurns,
} from "./compaction-helpers.js";
import { startAgent, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

const FAST_RETRY = { retry: { enabled: true, maxRetries: 3, baseDelayMs: 10 } };
const SERVER_ERROR = '500 {"type":"error","error":{"type":"api_error","message":"Internal server error"}}';
const OVERLOADED = '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';

/** Everything a failed compaction must leave as it was. */
async function snapshot(agent: RpcAgent, sessionDir: string) {
	const state = (await agent.ok({ type: "get_state" })) as { sessionFile: string };
	return {
		entries: await getEntries(agent),
		messages: await agent.ok({ type: "get_messages" }),
		file: readFileSync(state.sessionFile, "utf8"),
		files: readdirSync(sessionDir).sort(),
	};
}

describe("compact failures", () => {
	it("reports a planner reply that is not a list of ranges and changes nothing", async () => {
		const { agent, sessionDir } = await startAgent(harness.server, { sessions: true });
		const script = scriptServer(harness.server, () => textReply("I think you should delete lines 3 to 5"));
		await threeTurns(agent, script);
		const before = await snapshot(agent, sessionDir);
		const start = agent.mark();
		const response = await agent.request({ id: "bad", type: "compact" });
		const error = "Compaction failed: the model's reply was not a list of line ranges";
		expect(response).toEqual({ id: "bad", type: "response", command: "compact", success: false, error });
		expect(compactionRecords(agent, start)).toEqual([
			{ type: "compaction_start", reason: "manual" },
			{
				type: "compaction_end",
				reason: "manual",
				result: null,
				aborted: false,
				willRetry: false,
				errorMessage: error,
			},
		]);
		expect(plannerRequests(harness.server)).toHaveLength(1);
		expect(await snapshot(agent, sessionDir)).toEqual(before);
	});

	it("retries a failing planner request and gives up after the configured retries", async () => {
		const { agent, sessionDir } = await startAgent(harness.server, { sessions: true, settings: FAST_RETRY });
		const script = scriptServer(harness.server, () => ({ status: 500 }));
		await threeTurns(agent, script);
		const before = await snapshot(agent, sessionDir);
		const start = agent.mark();
		const response = await agent.request({ id: "down", type: "compact" });
		const error = `Compaction failed: the provider is rate limited or overloaded: ${SERVER_ERROR}`;
		expect(response).toMatchObject({ success: false, error });
		const attemptStart = { type: "summarization_retry_attempt_start", source: "compaction", reason: "manual" };
		const scheduled = (attempt: number, delayMs: number) => ({
			type: "summarization_retry_scheduled",
			attempt,
			maxAttempts: 3,
			delayMs,
			errorMessage: SERVER_ERROR,
		});
		expect(compactionRecords(agent, start)).toEqual([
			{ type: "compaction_start", reason: "manual" },
			scheduled(1, 10),
			attemptStart,
			scheduled(2, 20),
			attemptStart,
			scheduled(3, 40),
			attemptStart,
			{ type: "summarization_retry_finished" },
			{ type: "compaction_end", reason: "manual", result: null, aborted: false, willRetry: false, errorMessage: error },
		]);
		expect(plannerRequests(harness.server)).toHaveLength(4);
		expect(await snapshot(agent, sessionDir)).toEqual(before);
	});

	it("succeeds when the planner request works on its retry", async () => {
		const { agent } = await startAgent(harness.server, { settings: FAST_RETRY });
		const script = scriptServer(harness.server, (_request, index) =>
			index === 0 ? { status: 529 } : textReply("1,10\n"),
		);
		await threeTurns(agent, script);
		const start = agent.mark();
		const data = (await agent.ok({ type: "compact" })) as Record<string, unknown>;
		expect(data).toMatchObject({ rung: "planned", stats: { linesDeleted: 10, rangeCount: 1 } });
		expect(compactionRecords(agent, start)).toEqual([
			{ type: "compaction_start", reason: "manual" },
			{ type: "summarization_retry_scheduled", attempt: 1, maxAttempts: 3, delayMs: 10, errorMessage: OVERLOADED },
			{ type: "summarization_retry_attempt_start", source: "compaction", reason: "manual" },
			{ type: "summarization_retry_finished" },
			{ type: "compaction_end", reason: "manual", result: data, aborted: false, willRetry: false },
		]);
		expect(plannerRequests(harness.server)).toHaveLength(2);
	});

	for (const command of ["abort", "abort_compaction"]) {
		it(`${command} cancels a compaction whose planner request is in flight`, async () => {
			const { agent, sessionDir } = await startAgent(harness.server, { sessions: true });
			const { arrived, planner } = heldPlanner(2000);
			const script = scriptServer(harness.server, planner);
			await threeTurns(agent, script);
			const before = await snapshot(agent, sessionDir);
			const start = agent.mark();
			agent.send({ id: "slow", type: "compact" });
			await agent.waitForEvent("compaction_start", () => true, start);
			await arrived;
			// get_state waits behind the compaction; state_changed says it is running.
			await agent.waitForEvent("state_changed", (record) => isCompacting(record) === true, start);
			await agent.ok({ type: command });
			const response = await agent.waitFor((record) => record.type === "response" && record.id === "slow", {
				start,
			});
			expect(response).toEqual({
				id: "slow",
				type: "response",
				command: "compact",
				success: false,
				error: "Compaction cancelled",
			});
			expect(compactionRecords(agent, start)).toEqual([
				{ type: "compaction_start", reason: "manual" },
				{ type: "compaction_end", reason: "manual", result: null, aborted: true, willRetry: false },
			]);
			expect(await agent.ok({ type: "get_state" })).toMatchObject({ isCompacting: false });
			expect(
				agent
					.since(start, "state_changed")
					.map(isCompacting)
					.filter((value) => value !== undefined),
			).toEqual([true, false]);
			expect(await snapshot(agent, sessionDir)).toEqual(before);

			// The next compaction is not blocked by the cancelled one.
			script.planner = () => textReply("1,10\n");
			expect(await agent.ok({ type: "compact" })).toMatchObject({ rung: "planned" });
		});
	}
});

function isCompacting(record: RpcRecord): unknown {
	return (record.changes as Record<string, unknown> | undefined)?.isCompacting;
}
