import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textReply, toolReply } from "../support/llm-server.js";
import type { RpcAgent, RpcRecord } from "../support/rpc-process.js";
import { indexOf, startAgent, transcript, useRpcHarness, waitForFileCommand } from "./helpers.js";

const harness = useRpcHarness();

function queueUpdate(steering: string[], followUp: string[]): Record<string, unknown> {
	const item = (text: string) => ({ id: expect.stringMatching(/^[0-9a-f]{8}$/), text });
	return {
		type: "queue_update",
		steering,
		followUp,
		steeringItems: steering.map(item),
		followUpItems: followUp.map(item),
	};
}

function isUserMessage(text: string): (record: RpcRecord) => boolean {
	return (record) => {
		if (record.type !== "message_start") return false;
		const message = record.message as { role: string; content: { text?: string }[] };
		return message.role === "user" && message.content[0]?.text === text;
	};
}

async function pending(agent: RpcAgent): Promise<number> {
	const state = (await agent.ok({ type: "get_state" })) as { pendingMessageCount: number };
	return state.pendingMessageCount;
}

/** Starts a prompt whose first reply runs a bash tool that waits for `gate`; resolves once it runs. */
async function promptHeldByTool(agent: RpcAgent, gate: string): Promise<number> {
	harness.server.enqueue(toolReply("bash", { command: waitForFileCommand(gate) }));
	const start = agent.mark();
	await agent.request({ id: "held", type: "prompt", message: "work" });
	await agent.waitForEvent("tool_execution_start", () => true, start);
	return start;
}

describe("queueing while streaming", () => {
	it("delivers a steering prompt after the tool calls, before the next model call", async () => {
		const { agent, dirs } = await startAgent(harness.server);
		const gate = join(dirs.root, "gate");
		const start = await promptHeldByTool(agent, gate);
		harness.server.enqueue(textReply("saw the steer"));
		const before = agent.mark();
		const response = await agent.request({ id: "s", type: "prompt", message: "steer now", streamingBehavior: "steer" });
		expect(response).toEqual({
			id: "s",
			type: "response",
			command: "prompt",
			success: true,
			data: { disposition: "queued" },
		});
		expect(agent.since(before)).toEqual([queueUpdate(["steer now"], []), response]);
		expect(await pending(agent)).toBe(1);

		writeFileSync(gate, "");
		await agent.waitForEvent("agent_settled", () => true, start);
		const toolEnd = indexOf(agent, (record) => record.type === "tool_execution_end", start);
		const turnEnd = indexOf(agent, (record) => record.type === "turn_end", toolEnd);
		const emptied = indexOf(agent, (record) => record.type === "queue_update", turnEnd);
		const delivered = indexOf(agent, isUserMessage("steer now"), start);
		expect(toolEnd).toBeGreaterThan(0);
		expect(turnEnd).toBeGreaterThan(toolEnd);
		expect(agent.records[emptied]).toEqual(queueUpdate([], []));
		expect(delivered).toBeGreaterThan(emptied);
		expect(harness.server.requests).toHaveLength(2);
		expect(transcript(harness.server.requests[1])).toEqual([
			"user: work",
			"assistant: [tool_use]",
			"user: [tool_result]",
			"user: steer now",
		]);
		expect(agent.since(start, "agent_end")).toHaveLength(1);
		expect(await pending(agent)).toBe(0);
	});

	it("delivers a follow-up prompt only when the agent would stop", async () => {
		const { agent, dirs } = await startAgent(harness.server);
		const gate = join(dirs.root, "gate");
		const start = await promptHeldByTool(agent, gate);
		harness.server.enqueue(textReply("tool done"), textReply("saw the follow-up"));
		const before = agent.mark();
		const response = await agent.request({
			id: "f",
			type: "prompt",
			message: "then this",
			streamingBehavior: "followUp",
		});
		expect(response.success).toBe(true);
		expect(agent.since(before)).toEqual([queueUpdate([], ["then this"]), response]);

		writeFileSync(gate, "");
		await agent.waitForEvent("agent_settled", () => true, start);
		expect(harness.server.requests).toHaveLength(3);
		expect(transcript(harness.server.requests[1])).toEqual([
			"user: work",
			"assistant: [tool_use]",
			"user: [tool_result]",
		]);
		expect(transcript(harness.server.requests[2])).toEqual([
			"user: work",
			"assistant: [tool_use]",
			"user: [tool_result]",
			"assistant: tool done",
			"user: then this",
		]);
		const secondReplyEnd = indexOf(
			agent,
			(record) => record.type === "turn_end" && JSON.stringify(record.message).includes("tool done"),
			start,
		);
		const emptied = indexOf(agent, (record) => record.type === "queue_update", secondReplyEnd);
		expect(agent.records[emptied]).toEqual(queueUpdate([], []));
		expect(indexOf(agent, isUserMessage("then this"), start)).toBeGreaterThan(emptied);
		expect(agent.since(start, "agent_end")).toHaveLength(1);
	});

	it("aborts: the response follows agent_end, the reply is aborted, queued messages stay queued", async () => {
		const { agent } = await startAgent(harness.server);
		harness.server.enqueue({ ...textReply("partial answer"), fault: "stall", faultAfterFrames: 4 });
		const start = agent.mark();
		await agent.request({ type: "prompt", message: "go" });
		await agent.waitForEvent("message_update", () => true, start);
		expect(await agent.request({ id: "fu", type: "follow_up", message: "later" })).toEqual({
			id: "fu",
			type: "response",
			command: "follow_up",
			success: true,
			data: { disposition: "queued" },
		});
		const abort = await agent.request({ id: "a", type: "abort" });
		expect(abort).toEqual({ id: "a", type: "response", command: "abort", success: true });
		const agentEnd = indexOf(agent, (record) => record.type === "agent_end", start);
		expect(agentEnd).toBeGreaterThan(-1);
		expect(agentEnd).toBeLessThan(agent.records.indexOf(abort));
		const ends = agent
			.since(start, "message_end")
			.map((record) => record.message as { role: string; stopReason?: string });
		expect(ends.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
		await agent.waitForEvent("agent_settled", () => true, start);
		const state = (await agent.ok({ type: "get_state" })) as { isStreaming: boolean; pendingMessageCount: number };
		expect(state).toMatchObject({ isStreaming: false, pendingMessageCount: 1 });
		expect(harness.server.requests).toHaveLength(1);
		expect(harness.server.requests[0]?.clientDisconnected).toBe(true);

		// The queued follow-up runs after the next prompt's reply.
		harness.server.enqueue(textReply("next"), textReply("followed up"));
		await agent.prompt("again");
		expect(harness.server.requests).toHaveLength(3);
		expect(transcript(harness.server.requests[2]).slice(-2)).toEqual(["assistant: next", "user: later"]);
	});

	it("succeeds when asked to abort while idle", async () => {
		const { agent } = await startAgent(harness.server);
		const start = agent.mark();
		expect(await agent.request({ id: "idle", type: "abort" })).toEqual({
			id: "idle",
			type: "response",
			command: "abort",
			success: true,
		});
		expect(agent.since(start)).toHaveLength(1);
	});
});

describe("queueing while idle", () => {
	it("delivers steering with the next prompt and follow-ups after its reply", async () => {
		const { agent } = await startAgent(harness.server);
		let start = agent.mark();
		expect(await agent.request({ id: "st", type: "steer", message: "steered" })).toEqual({
			id: "st",
			type: "response",
			command: "steer",
			success: true,
			data: { disposition: "queued" },
		});
		expect(agent.since(start)[0]).toEqual(queueUpdate(["steered"], []));
		start = agent.mark();
		await agent.ok({ type: "follow_up", message: "followed" });
		expect(agent.since(start)[0]).toEqual(queueUpdate(["steered"], ["followed"]));
		expect(await pending(agent)).toBe(2);

		harness.server.enqueue(textReply("first"), textReply("second"));
		await agent.prompt("main");
		expect(harness.server.requests).toHaveLength(2);
		expect(transcript(harness.server.requests[0])).toEqual(["user: main", "user: steered"]);
		expect(transcript(harness.server.requests[1])).toEqual([
			"user: main",
			"user: steered",
			"assistant: first",
			"user: followed",
		]);
		expect(await pending(agent)).toBe(0);
	});

	it("clear_queue returns the removed texts and announces the empty queue", async () => {
		const { agent } = await startAgent(harness.server);
		await agent.ok({ type: "steer", message: "a" });
		await agent.ok({ type: "follow_up", message: "b" });
		const start = agent.mark();
		const response = await agent.request({ id: "cq", type: "clear_queue" });
		expect(response).toEqual({
			id: "cq",
			type: "response",
			command: "clear_queue",
			success: true,
			data: { steering: ["a"], followUp: ["b"] },
		});
		expect(agent.since(start)).toEqual([queueUpdate([], []), response]);
		expect(await pending(agent)).toBe(0);
		expect(await agent.ok({ type: "clear_queue" })).toEqual({ steering: [], followUp: [] });
		await agent.prompt("only");
		expect(harness.server.requests).toHaveLength(1);
		expect(transcript(harness.server.requests[0])).toEqual(["user: only"]);
	});
});

// How each mode delivers the queue is checked in process: test/runtime/queue-modes.test.ts.
describe("queue modes", () => {
	it("reports the modes in get_state", async () => {
		const { agent } = await startAgent(harness.server);
		const initial = (await agent.ok({ type: "get_state" })) as Record<string, unknown>;
		expect(initial).toMatchObject({ steeringMode: "one-at-a-time", followUpMode: "one-at-a-time" });
		expect(await agent.request({ id: "sm", type: "set_steering_mode", mode: "all" })).toEqual({
			id: "sm",
			type: "response",
			command: "set_steering_mode",
			success: true,
		});
		expect(await agent.request({ id: "fm", type: "set_follow_up_mode", mode: "all" })).toEqual({
			id: "fm",
			type: "response",
			command: "set_follow_up_mode",
			success: true,
		});
		const changed = (await agent.ok({ type: "get_state" })) as Record<string, unknown>;
		expect(changed).toMatchObject({ steeringMode: "all", followUpMode: "all" });
	});
});
