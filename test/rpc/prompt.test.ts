import { describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import { TINY_PNG } from "../support/models.js";
import type { RpcRecord } from "../support/rpc-process.js";
import { anthropicBody, responsesWithId, startAgent, transcript, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

// The conversation across prompts, a queueing hint while idle and new_session during a run are
// checked in process: test/runtime/prompt.test.ts.
describe("prompt", () => {
	it("answers before agent_start, then streams the whole run in order", async () => {
		const { agent } = await startAgent(harness.server);
		harness.server.enqueue({
			blocks: [{ type: "text", text: "Hello there, world", chunks: ["Hello", " there,", " world"] }],
		});
		const { start } = await agent.prompt("hi", { id: "p1" });
		const records = agent.since(start);
		expect(records[0]).toEqual({
			id: "p1",
			type: "response",
			command: "prompt",
			success: true,
			data: { disposition: "started" },
		});
		expect(records.map((record) => record.type)).toEqual([
			"response",
			"agent_start",
			"turn_start",
			"message_start",
			"message_end",
			"message_start",
			"message_update",
			"message_update",
			"message_update",
			"message_update",
			"message_update",
			"message_update",
			"message_end",
			"turn_end",
			"agent_end",
			"agent_settled",
		]);
		const user = { role: "user", content: [{ type: "text", text: "hi" }], timestamp: expect.any(Number) };
		expect(records[3]).toEqual({ type: "message_start", message: user });
		expect(records[4]).toEqual({ type: "message_end", message: user });
		expect(records[5]?.message).toMatchObject({
			role: "assistant",
			content: [],
			provider: "mock",
			model: "mock-model",
		});

		const updates = agent.since(start, "message_update");
		expect(updates.map((update) => (update.assistantMessageEvent as { type: string }).type)).toEqual([
			"text_start",
			"text_delta",
			"text_delta",
			"text_delta",
			"text_end",
			"done",
		]);
		for (const update of updates) {
			expect(Object.keys(update).filter((key) => key !== "usage")).toEqual(["type", "assistantMessageEvent"]);
			expect(update.assistantMessageEvent).not.toHaveProperty("partial");
		}
		// Usage comes with the first update, then only when it changed.
		expect(updates[0]?.usage).toMatchObject({ input: 10, cacheRead: 0, cacheWrite: 0 });
		const reported = updates.filter((update) => update.usage !== undefined).map((update) => update.usage);
		expect(reported.length).toBeLessThan(updates.length);
		expect(new Set(reported.map((usage) => JSON.stringify(usage))).size).toBe(reported.length);
		const end = agent.since(start, "message_end").at(-1) as unknown as { message: { usage: { output: number } } };
		expect(reported.at(-1)).toMatchObject({ output: end.message.usage.output });
		const deltas = updates
			.map((update) => update.assistantMessageEvent as { type: string; delta?: string })
			.filter((event) => event.type === "text_delta")
			.map((event) => event.delta);
		expect(deltas).toEqual(["Hello", " there,", " world"]);
		expect(updates[4]?.assistantMessageEvent).toEqual({
			type: "text_end",
			contentIndex: 0,
			content: "Hello there, world",
		});
		expect(updates[5]?.assistantMessageEvent).toEqual({ type: "done", reason: "stop" });

		const final = records[12]?.message as { content: unknown; stopReason: string };
		expect(final.content).toEqual([{ type: "text", text: deltas.join("") }]);
		expect(final.stopReason).toBe("stop");
		expect(records[13]).toEqual({ type: "turn_end", message: final, toolResults: [] });
		expect(records[14]).toEqual({ type: "agent_end", messages: [user, final] });
		expect(records[15]).toEqual({ type: "agent_settled" });
		expect(await agent.ok({ type: "get_last_assistant_text" })).toEqual({ text: "Hello there, world" });
		expect(responsesWithId(agent, "p1")).toHaveLength(1);
	});

	it("runs a tool call between two turns, in order, under one toolCallId", async () => {
		const { agent } = await startAgent(harness.server);
		harness.server.enqueue(
			{ blocks: [{ type: "toolCall", id: "call_echo", name: "bash", arguments: { command: "echo hi" } }] },
			textReply("the tool said hi"),
		);
		const { start } = await agent.prompt("use the tool");
		const all = agent.since(start);
		const updates = all.filter((record) => record.type === "tool_execution_update");
		const toolStart = all.findIndex((record) => record.type === "tool_execution_start");
		const toolEnd = all.findIndex((record) => record.type === "tool_execution_end");
		for (const update of updates) {
			expect(update).toMatchObject({ toolCallId: "call_echo", toolName: "bash", args: { command: "echo hi" } });
			expect(all.indexOf(update)).toBeGreaterThan(toolStart);
			expect(all.indexOf(update)).toBeLessThan(toolEnd);
		}
		const records = all.filter((record) => record.type !== "message_update" && record.type !== "tool_execution_update");
		const roles = (record: RpcRecord) => (record.message as { role?: string } | undefined)?.role;
		expect(records.map((record) => (roles(record) ? `${record.type}:${roles(record)}` : record.type))).toEqual([
			"response",
			"agent_start",
			"turn_start",
			"message_start:user",
			"message_end:user",
			"message_start:assistant",
			"message_end:assistant",
			"tool_execution_start",
			"tool_execution_end",
			"message_start:toolResult",
			"message_end:toolResult",
			"turn_end:assistant",
			"turn_start",
			"message_start:assistant",
			"message_end:assistant",
			"turn_end:assistant",
			"agent_end",
			"agent_settled",
		]);
		expect(records[7]).toEqual({
			type: "tool_execution_start",
			toolCallId: "call_echo",
			toolName: "bash",
			args: { command: "echo hi" },
		});
		expect(records[8]).toMatchObject({ toolCallId: "call_echo", toolName: "bash", isError: false });
		expect(records[10]?.message).toMatchObject({ role: "toolResult", toolCallId: "call_echo", toolName: "bash" });
		const turnEnd = records[11];
		expect(turnEnd?.toolResults).toEqual([records[10]?.message]);
		expect(transcript(harness.server.requests[1])).toEqual([
			"user: use the tool",
			"assistant: [tool_use]",
			"user: [tool_result]",
		]);
	});

	it("sends images to the model after the text, for prompts and queued steering", async () => {
		const { agent } = await startAgent(harness.server);
		const images = [{ type: "image", data: TINY_PNG, mimeType: "image/png" }];
		await agent.ok({ type: "steer", message: "And this?", images });
		const { start } = await agent.prompt("What is this?", { images });
		expect(agent.since(start, "message_start")[0]?.message).toEqual({
			role: "user",
			content: [{ type: "text", text: "What is this?" }, ...images],
			timestamp: expect.any(Number),
		});
		const image = { type: "image", source: { type: "base64", media_type: "image/png", data: TINY_PNG } };
		expect(anthropicBody(harness.server.requests[0]).messages).toEqual([
			{ role: "user", content: [{ type: "text", text: "What is this?" }, image] },
			{
				role: "user",
				content: [
					{ type: "text", text: "And this?" },
					{ ...image, cache_control: { type: "ephemeral" } },
				],
			},
		]);
	});

	it("refuses a second prompt while streaming unless it says how to queue it", async () => {
		const { agent } = await startAgent(harness.server);
		harness.server.enqueue({ ...textReply("never finished"), fault: "stall", faultAfterFrames: 3 });
		const start = agent.mark();
		await agent.request({ id: "first", type: "prompt", message: "first" });
		await agent.waitForEvent(
			"message_start",
			(record) => (record.message as { role: string }).role === "assistant",
			start,
		);
		expect(await agent.request({ id: "second", type: "prompt", message: "second" })).toEqual({
			id: "second",
			type: "response",
			command: "prompt",
			success: false,
			error: "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.",
		});
		const state = (await agent.ok({ type: "get_state" })) as { isStreaming: boolean; pendingMessageCount: number };
		expect(state).toMatchObject({ isStreaming: true, pendingMessageCount: 0 });
		await agent.ok({ type: "abort" });
		await agent.waitForEvent("agent_settled", () => true, start);
		expect(responsesWithId(agent, "second")).toHaveLength(1);
		expect(responsesWithId(agent, "first")).toHaveLength(1);
	});

	// An abort written right after a prompt cannot overtake it: the prompt starts aborted.
	it("aborts a prompt sent just before the abort", async () => {
		const { agent } = await startAgent(harness.server);
		harness.server.enqueue({ ...textReply("never finished"), fault: "stall", faultAfterFrames: 3 });
		const start = agent.mark();
		agent.sendRaw('{"id":"p","type":"prompt","message":"go"}\n{"id":"a","type":"abort"}\n');
		const abort = await agent.waitFor((record) => record.type === "response" && record.id === "a", { start });
		const agentEnd = agent.records.findIndex((record, index) => index >= start && record.type === "agent_end");
		expect(agentEnd).toBeGreaterThan(-1);
		expect(agentEnd).toBeLessThan(agent.records.indexOf(abort));
	});

	it("reports a provider error after acceptance as an error reply, not a second response", async () => {
		const { agent } = await startAgent(harness.server);
		harness.server.enqueue({ status: 401 });
		const { start } = await agent.prompt("hello", { id: "p401" });
		const ends = agent.since(start, "message_end").map((record) => record.message as Record<string, unknown>);
		expect(ends).toHaveLength(2);
		expect(ends[1]).toMatchObject({
			role: "assistant",
			content: [],
			stopReason: "error",
			errorMessage: '401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}',
		});
		expect(responsesWithId(agent, "p401")).toEqual([
			{ id: "p401", type: "response", command: "prompt", success: true, data: { disposition: "started" } },
		]);
		expect(agent.since(start, "auto_retry_start")).toEqual([]);
		expect(harness.server.requests).toHaveLength(1);
		expect(await agent.ok({ type: "get_last_assistant_text" })).toEqual({ text: null });
	});
});
