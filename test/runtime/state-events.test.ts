import { describe, expect, it } from "vitest";
import type { StateChanges } from "../../src/runtime/facade/events.js";
import { textReply, toolReply } from "../support/llm-server.js";
import { settle, startSession } from "./helpers.js";

/** Every state_changed since `from`, merged in order: what a client's mirror would hold. */
function mirror(changes: StateChanges[]): StateChanges {
	return Object.assign({}, ...changes);
}

describe("state_changed", () => {
	it("announces each changed field with its new value, whatever changed it", async () => {
		const { session, of } = startSession({ create: { model: "fake/thinker" } });
		session.setSteeringMode("all");
		session.setSessionName("mirror me");
		await settle();
		expect(of("state_changed").map((event) => event.changes)).toEqual([
			{ steeringMode: "all", sessionName: "mirror me" },
		]);

		// A model change clamps the level too: both are announced.
		session.setThinkingLevel("high");
		session.setModel("fake", "small");
		await settle();
		const latest = of("state_changed").at(-1)?.changes;
		expect(latest?.model).toMatchObject({ provider: "fake", id: "small" });
		expect(latest?.thinkingLevel).toBe("off");
	});

	it("keeps a client's mirror equal to get_state through a run, a queue and a replacement", async () => {
		const { session, of, next } = startSession({
			steps: [toolReply("bash", { command: "echo hi" }), textReply("done")],
		});
		const initial = session.getState();
		await session.prompt("go");
		await session.steer("later");
		await session.newSession();
		await settle();
		const mirrored = { ...initial, ...mirror(of("state_changed").map((event) => event.changes)) };
		const now = session.getState();
		for (const [key, value] of Object.entries(mirrored))
			if (value === null) delete mirrored[key as keyof typeof mirrored];
		expect(mirrored).toEqual(now);
		// isStreaming went true and back to false during the run, announced before agent_settled.
		const streaming = of("state_changed").map((event) => event.changes.isStreaming);
		expect(streaming.filter((value) => value !== undefined)).toEqual([true, false]);
		await next((event) => event.type === "agent_settled");
	});

	it("announces isCompacting while a compaction runs, and the queue size of a burst once per turn", async () => {
		const lines = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`).join("\n");
		const { session, stream, of, next, events } = startSession({
			steps: [textReply("ok"), textReply("done", { usage: { input: 1000, output: 10 } })],
		});
		await session.prompt(lines);
		await session.prompt("second");
		stream.push(textReply("2,10", { headersDelayMs: 100 }));
		const from = events.length;
		const compacting = session.compact();
		await next((event) => event.type === "compaction_start", from);
		await settle();
		expect(of("state_changed", from).map((event) => event.changes.isCompacting)).toContain(true);
		await compacting;
		await settle();
		expect(of("state_changed", from).at(-1)?.changes).toMatchObject({ isCompacting: false });

		const burst = events.length;
		session.agent.queueSteering({ role: "user", content: "a", timestamp: 1 }, "a");
		session.agent.queueSteering({ role: "user", content: "b", timestamp: 2 }, "b");
		session.agent.queueSteering({ role: "user", content: "c", timestamp: 3 }, "c");
		await settle();
		expect(of("state_changed", burst).map((event) => event.changes)).toEqual([{ pendingMessageCount: 3 }]);
	});
});

describe("context_usage", () => {
	it("follows every assistant message and every compaction, as get_session_stats reports it", async () => {
		const lines = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`).join("\n");
		const { session, stream, of } = startSession({
			steps: [
				textReply("ok", { usage: { input: 400, output: 20 } }),
				textReply("done", { usage: { input: 900, output: 10 } }),
			],
		});
		await session.prompt(lines);
		expect(of("context_usage")).toEqual([
			{ type: "context_usage", tokens: 420, contextWindow: 100_000, percent: 0.42 },
		]);
		await session.prompt("second");
		expect(of("context_usage").at(-1)).toMatchObject({ tokens: 910 });
		stream.push(textReply("2,10"));
		await session.compact();
		const afterCompaction = of("context_usage").at(-1);
		expect(afterCompaction).toEqual({ type: "context_usage", tokens: null, contextWindow: 100_000, percent: null });
		expect(session.getSessionStats().contextUsage).toEqual({ tokens: null, contextWindow: 100_000, percent: null });
	});
});

describe("heartbeat", () => {
	it("says what a quiet, busy session waits on: the provider, then a tool", async () => {
		const { session, of, next } = startSession({
			create: { heartbeatMs: 40 },
			steps: [{ ...toolReply("bash", { command: "sleep 0.3" }), headersDelayMs: 200 }, textReply("done")],
		});
		const run = session.prompt("go");
		await next((event) => event.type === "heartbeat" && event.waitingOn === "provider");
		await next((event) => event.type === "heartbeat" && event.waitingOn === "tool");
		await run;
		const count = of("heartbeat").length;
		await new Promise((resolve) => setTimeout(resolve, 150));
		expect(of("heartbeat")).toHaveLength(count);
		for (const beat of of("heartbeat")) expect(beat.idleMs).toBeGreaterThanOrEqual(40);
	});

	it("is off with an interval of 0", async () => {
		const { session, of } = startSession({
			create: { heartbeatMs: 0 },
			steps: [{ ...textReply("slow"), headersDelayMs: 200 }],
		});
		await session.prompt("go");
		expect(of("heartbeat")).toEqual([]);
	});
});
