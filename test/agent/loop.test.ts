import { Type } from "typebox";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RetryPolicy } from "../../src/agent/retry.js";
import { TRUNCATED_CALL_TEXT } from "../../src/agent/tool-execution.js";
import type { AgentEvent, AgentTool } from "../../src/agent/types.js";
import type { AssistantMessage, ToolResultMessage } from "../../src/llm/types.js";
import { textReply, toolReply } from "../support/llm-server.js";
import { scriptedStream } from "../support/scripted-stream.js";
import { controllableTool, harness, user } from "./helpers.js";

const echoTool: AgentTool = {
	name: "echo",
	description: "echoes its value",
	parameters: Type.Object({ value: Type.String(), times: Type.Optional(Type.Number()) }),
	async execute(_id, args) {
		const { value, times } = args as { value: string; times?: number };
		return { content: [{ type: "text", text: value.repeat(times ?? 1) }], details: { times: times ?? 1 } };
	},
};

function endOf(events: AgentEvent[], type: "agent_end"): AgentEvent & { type: "agent_end" } {
	const found = events.find((event) => event.type === type);
	if (found?.type !== "agent_end") throw new Error(`no ${type}`);
	return found;
}

function toolResults(events: AgentEvent[]): ToolResultMessage[] {
	return events.flatMap((event) =>
		event.type === "message_end" && event.message.role === "toolResult" ? [event.message] : [],
	);
}

describe("agent loop", () => {
	afterEach(() => {
		vi.useRealTimers();
	});

	it("runs a single turn and emits the events in order", async () => {
		const { agent, events, types } = harness([{ blocks: [{ type: "text", text: "Hello there", chunks: 3 }] }]);
		const added = await agent.prompt(user("hi"));
		expect(types()).toEqual([
			"agent_start",
			"turn_start",
			"message_start:user",
			"message_end:user",
			"message_start:assistant",
			"message_end:assistant",
			"turn_end",
			"agent_end",
		]);
		const deltas = events.flatMap((event) =>
			event.type === "message_update" && event.assistantMessageEvent.type === "text_delta"
				? [event.assistantMessageEvent.delta]
				: [],
		);
		expect(deltas).toEqual(["Hell", "o th", "ere"]);
		expect(added.map((message) => message.role)).toEqual(["user", "assistant"]);
		expect(endOf(events, "agent_end").messages).toEqual(added);
		expect(agent.messages).toEqual(added);
		expect(agent.isRunning).toBe(false);
	});

	it("runs a tool round trip and feeds the result to the next call", async () => {
		const { agent, stream, types } = harness([toolReply("echo", { value: "ab", times: 2 }), textReply("done")], {
			tools: [echoTool],
		});
		await agent.prompt(user("go"));
		expect(types()).toEqual([
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
			"turn_end",
			"turn_start",
			"message_start:assistant",
			"message_end:assistant",
			"turn_end",
			"agent_end",
		]);
		const second = stream.calls[1]?.context.messages ?? [];
		expect(second.map((message) => message.role)).toEqual(["user", "assistant", "toolResult"]);
		const result = second[2] as ToolResultMessage;
		expect(result.content).toEqual([{ type: "text", text: "abab" }]);
		expect(result.isError).toBe(false);
		expect(stream.calls[0]?.context.tools?.map((tool) => tool.name)).toEqual(["echo"]);
	});

	it("runs tools in parallel and still emits results in call order", async () => {
		const slow = controllableTool("slow");
		const h = harness(
			[
				{
					blocks: [
						{ type: "toolCall", id: "first", name: "slow", arguments: { value: "1" } },
						{ type: "toolCall", id: "second", name: "slow", arguments: { value: "2" } },
					],
				},
				textReply("done"),
			],
			{ tools: [slow] },
		);
		const run = h.agent.prompt(user("go"));
		await h.waitFor((event) => event.type === "tool_execution_start" && event.toolCallId === "second");
		await vi.waitUntil(() => slow.started.length === 2);
		slow.release("second", "two");
		await h.waitFor((event) => event.type === "tool_execution_end" && event.toolCallId === "second");
		slow.release("first", "one");
		await run;
		const ends = h.events.flatMap((event) => (event.type === "tool_execution_end" ? [event.toolCallId] : []));
		expect(ends).toEqual(["second", "first"]);
		expect(toolResults(h.events).map((message) => message.toolCallId)).toEqual(["first", "second"]);
		const turnEnd = h.events.find((event) => event.type === "turn_end");
		expect(turnEnd?.type === "turn_end" && turnEnd.toolResults.map((message) => message.toolCallId)).toEqual([
			"first",
			"second",
		]);
	});

	it("runs tools one at a time in sequential mode", async () => {
		const order: string[] = [];
		const tracking: AgentTool = {
			...echoTool,
			async execute(id, args) {
				order.push(`start ${id}`);
				await new Promise((resolve) => setImmediate(resolve));
				order.push(`end ${id}`);
				return echoTool.execute(id, args, new AbortController().signal, () => undefined);
			},
		};
		const h = harness(
			[
				{
					blocks: [
						{ type: "toolCall", id: "a", name: "echo", arguments: { value: "x" } },
						{ type: "toolCall", id: "b", name: "echo", arguments: { value: "y" } },
					],
				},
				textReply("done"),
			],
			{ tools: [tracking], toolExecution: "sequential" },
		);
		await h.agent.prompt(user("go"));
		expect(order).toEqual(["start a", "end a", "start b", "end b"]);
		expect(h.types().slice(6, 12)).toEqual([
			"tool_execution_start",
			"tool_execution_end",
			"message_start:toolResult",
			"message_end:toolResult",
			"tool_execution_start",
			"tool_execution_end",
		]);
	});

	it("turns invalid arguments into an error result the model reads", async () => {
		const h = harness([toolReply("echo", { times: "many" }), textReply("ok")], { tools: [echoTool] });
		await h.agent.prompt(user("go"));
		const [result] = toolResults(h.events);
		expect(result?.isError).toBe(true);
		expect(result?.content).toEqual([
			{
				type: "text",
				text: "Invalid arguments: arguments: must have required properties value; times: must be number",
			},
		]);
		expect(h.stream.calls).toHaveLength(2);
	});

	it("converts lossless primitive mismatches before validating", async () => {
		const h = harness([toolReply("echo", { value: "z", times: "3" }), textReply("ok")], { tools: [echoTool] });
		await h.agent.prompt(user("go"));
		expect(toolResults(h.events)[0]?.content).toEqual([{ type: "text", text: "zzz" }]);
	});

	it("reports an unknown tool as an error result", async () => {
		const h = harness([toolReply("nope", {}), textReply("ok")], { tools: [echoTool] });
		await h.agent.prompt(user("go"));
		const [result] = toolResults(h.events);
		expect(result).toMatchObject({
			isError: true,
			toolName: "nope",
			content: [{ type: "text", text: "Tool nope not found" }],
		});
	});

	it("turns a throwing tool into an error result", async () => {
		const failing: AgentTool = { ...echoTool, name: "boom", execute: () => Promise.reject(new Error("kaboom")) };
		const h = harness([toolReply("boom", { value: "v" }), textReply("ok")], { tools: [failing] });
		await h.agent.prompt(user("go"));
		expect(toolResults(h.events)[0]).toMatchObject({ isError: true, content: [{ type: "text", text: "kaboom" }] });
	});

	it("does not execute tool calls of a reply cut off at the length limit", async () => {
		const execute = vi.fn(echoTool.execute);
		const h = harness([{ ...toolReply("echo", { value: "v" }), stopReason: "length" }, textReply("ok")], {
			tools: [{ ...echoTool, execute }],
		});
		await h.agent.prompt(user("go"));
		expect(execute).not.toHaveBeenCalled();
		expect(toolResults(h.events)[0]).toMatchObject({
			isError: true,
			content: [{ type: "text", text: TRUNCATED_CALL_TEXT }],
		});
	});

	it("lets beforeToolCall block a call and afterToolCall replace a result", async () => {
		const h = harness(
			[
				{
					blocks: [
						{ type: "toolCall", id: "blocked", name: "echo", arguments: { value: "no" } },
						{ type: "toolCall", id: "allowed", name: "echo", arguments: { value: "yes" } },
					],
				},
				textReply("ok"),
			],
			{
				tools: [echoTool],
				beforeToolCall: async ({ toolCall }) =>
					toolCall.id === "blocked" ? { block: true, reason: "not allowed" } : undefined,
				afterToolCall: async ({ result }) => ({
					content: [{ type: "text", text: `wrapped(${(result.content[0] as { text: string }).text})` }],
				}),
			},
		);
		await h.agent.prompt(user("go"));
		expect(toolResults(h.events).map((message) => [message.isError, message.content])).toEqual([
			[true, [{ type: "text", text: "not allowed" }]],
			[false, [{ type: "text", text: "wrapped(yes)" }]],
		]);
	});

	it("passes the context through transformContext before each call", async () => {
		const h = harness([textReply("ok")], {
			transformContext: async (messages) => [user("injected"), ...messages],
		});
		await h.agent.prompt(user("real"));
		expect(h.stream.calls[0]?.context.messages.map((message) => message.content)).toEqual(["injected", "real"]);
	});

	it("calls afterToolBatch after each tool turn, and the next call uses the messages it left", async () => {
		const seen: string[][] = [];
		const h = harness([toolReply("echo", { value: "a" }), toolReply("echo", { value: "b" }), textReply("done")], {
			tools: [echoTool],
			afterToolBatch: async (messages) => {
				seen.push(messages.map((message) => message.role));
				// Replaced in place, as a compaction between turns does.
				messages.splice(0, messages.length, user(`compacted ${seen.length}`));
			},
		});
		await h.agent.prompt(user("go"));
		expect(seen).toEqual([
			["user", "assistant", "toolResult"],
			["user", "assistant", "toolResult"],
		]);
		const sent = h.stream.calls.map((call) => call.context.messages.map((message) => message.role));
		expect(sent).toEqual([["user"], ["user"], ["user"]]);
		expect(h.stream.calls[2]?.context.messages[0]?.content).toBe("compacted 2");
		expect(h.agent.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
		expect(h.types().filter((type) => type === "agent_end")).toHaveLength(1);
	});

	it("delivers steering after the turn's tools and before the next model call, one at a time", async () => {
		const slow = controllableTool("slow");
		const h = harness(
			[toolReply("slow", { value: "v" }), textReply("after first steer"), textReply("after second steer")],
			{
				tools: [slow],
			},
		);
		const run = h.agent.prompt(user("go"));
		await vi.waitUntil(() => slow.started.length === 1);
		h.agent.queueSteering(user("steer 1"), "steer 1");
		h.agent.queueSteering(user("steer 2"), "steer 2");
		slow.release(slow.started[0] as string, "tool done");
		await run;
		expect(h.stream.calls).toHaveLength(3);
		const second = h.stream.calls[1]?.context.messages ?? [];
		expect(second.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "user"]);
		expect(second[3]?.content).toBe("steer 1");
		expect(h.stream.calls[2]?.context.messages.at(-1)?.content).toBe("steer 2");
		const queueUpdates = h.events.flatMap((event) =>
			event.type === "queue_update" ? [event.steering.map((item) => item.text)] : [],
		);
		expect(queueUpdates).toEqual([["steer 1"], ["steer 1", "steer 2"], ["steer 2"], []]);
	});

	it("delivers all steering messages at once in 'all' mode", async () => {
		const slow = controllableTool("slow");
		const h = harness([toolReply("slow", { value: "v" }), textReply("done")], { tools: [slow] });
		h.agent.steering.mode = "all";
		const run = h.agent.prompt(user("go"));
		await vi.waitUntil(() => slow.started.length === 1);
		h.agent.queueSteering(user("a"), "a");
		h.agent.queueSteering(user("b"), "b");
		slow.release(slow.started[0] as string, "done");
		await run;
		expect(h.stream.calls).toHaveLength(2);
		expect(h.stream.calls[1]?.context.messages.slice(-2).map((message) => message.content)).toEqual(["a", "b"]);
	});

	it("delivers steering queued while idle right after the next prompt", async () => {
		const h = harness([textReply("both seen")]);
		h.agent.queueSteering(user("queued early"), "queued early");
		await h.agent.prompt(user("prompt"));
		expect(h.stream.calls).toHaveLength(1);
		expect(h.stream.calls[0]?.context.messages.map((message) => message.content)).toEqual(["prompt", "queued early"]);
	});

	it("delivers follow-ups only when the agent would otherwise stop, within the same run", async () => {
		const h = harness([{ ...textReply("first answer"), delayMs: 5 }, textReply("follow-up answer")]);
		const run = h.agent.prompt(user("first"));
		await h.waitFor((event) => event.type === "message_start" && event.message.role === "assistant");
		h.agent.queueFollowUp(user("later"), "later");
		await run;
		expect(h.types().filter((type) => type === "agent_start" || type === "agent_end")).toEqual([
			"agent_start",
			"agent_end",
		]);
		expect(h.stream.calls[1]?.context.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
		expect(h.types().filter((type) => type.startsWith("turn"))).toEqual([
			"turn_start",
			"turn_end",
			"turn_start",
			"turn_end",
		]);
	});

	it("aborts during streaming: the reply ends aborted, turn_end and agent_end follow once", async () => {
		const h = harness([{ blocks: [{ type: "text", text: "a long reply", chunks: 12 }], delayMs: 20 }]);
		const controller = new AbortController();
		const run = h.agent.prompt(user("go"), controller.signal);
		await h.waitFor((event) => event.type === "message_update");
		controller.abort();
		await run;
		const last = h.events.filter((event) => event.type === "message_end").at(-1);
		expect(last?.type === "message_end" && (last.message as AssistantMessage).stopReason).toBe("aborted");
		expect(h.types().slice(-3)).toEqual(["message_end:assistant", "turn_end", "agent_end"]);
		expect(h.types().filter((type) => type === "agent_end")).toHaveLength(1);
	});

	it("aborts during a running tool: the tool sees the signal and the run ends with an aborted reply", async () => {
		const slow = controllableTool("slow");
		const h = harness([toolReply("slow", { value: "v" }), textReply("never")], { tools: [slow] });
		const controller = new AbortController();
		const run = h.agent.prompt(user("go"), controller.signal);
		await vi.waitUntil(() => slow.started.length === 1);
		controller.abort();
		await run;
		expect(toolResults(h.events)[0]).toMatchObject({
			isError: true,
			content: [{ type: "text", text: "aborted by test" }],
		});
		const replies = h.events.flatMap((event) =>
			event.type === "message_end" && event.message.role === "assistant" ? [event.message.stopReason] : [],
		);
		expect(replies).toEqual(["toolUse", "aborted"]);
		expect(h.stream.calls).toHaveLength(2);
		expect(h.types().slice(-2)).toEqual(["turn_end", "agent_end"]);
	});

	it("keeps queued messages after an abort instead of running them", async () => {
		const h = harness([{ blocks: [{ type: "text", text: "slow", chunks: 4 }], delayMs: 20 }]);
		const controller = new AbortController();
		const run = h.agent.prompt(user("go"), controller.signal);
		await h.waitFor((event) => event.type === "message_update");
		h.agent.queueFollowUp(user("later"), "later");
		controller.abort();
		await run;
		expect(h.agent.followUp.list().map((item) => item.text)).toEqual(["later"]);
		expect(h.stream.calls).toHaveLength(1);
	});

	it("refuses a second prompt while running", async () => {
		const h = harness([{ ...textReply("slow"), delayMs: 10 }]);
		const run = h.agent.prompt(user("one"));
		await expect(h.agent.prompt(user("two"))).rejects.toThrow(/already processing/);
		await run;
	});

	it("retries two 529s with 2 s and 4 s delays, then succeeds", async () => {
		vi.useFakeTimers();
		const h = harness([{ status: 529 }, { status: 529 }, textReply("finally")], { retry: new RetryPolicy() });
		const run = h.agent.prompt(user("go"));
		await vi.advanceTimersByTimeAsync(1999);
		expect(h.stream.calls).toHaveLength(1);
		await vi.advanceTimersByTimeAsync(1);
		expect(h.stream.calls).toHaveLength(2);
		await vi.advanceTimersByTimeAsync(3999);
		expect(h.stream.calls).toHaveLength(2);
		await vi.advanceTimersByTimeAsync(1);
		await run;
		expect(h.stream.calls).toHaveLength(3);
		const retryEvents = h.events.filter((event) => event.type.startsWith("auto_retry"));
		expect(retryEvents).toEqual([
			{
				type: "auto_retry_start",
				attempt: 1,
				maxAttempts: 3,
				delayMs: 2000,
				errorMessage: expect.stringMatching(/^529 /),
			},
			{
				type: "auto_retry_start",
				attempt: 2,
				maxAttempts: 3,
				delayMs: 4000,
				errorMessage: expect.stringMatching(/^529 /),
			},
			{ type: "auto_retry_end", success: true, attempt: 2 },
		]);
		// The failed replies reached clients but not the conversation the model sees.
		expect(h.agent.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
		expect(h.stream.calls[2]?.context.messages.map((message) => message.role)).toEqual(["user"]);
	});

	it("gives up after maxRetries with the final error", async () => {
		vi.useFakeTimers();
		const h = harness([{ status: 500 }, { status: 500 }, { status: 500 }], {
			retry: new RetryPolicy({ maxRetries: 2, baseDelayMs: 10 }),
		});
		const run = h.agent.prompt(user("go"));
		await vi.advanceTimersByTimeAsync(100);
		await run;
		const retryEnd = h.events.find((event) => event.type === "auto_retry_end");
		expect(retryEnd).toMatchObject({
			type: "auto_retry_end",
			success: false,
			attempt: 2,
			finalError: expect.stringMatching(/^500 /),
		});
		expect(h.stream.calls).toHaveLength(3);
		expect((h.agent.messages.at(-1) as AssistantMessage).stopReason).toBe("error");
	});

	it("does not retry a 401", async () => {
		const h = harness([{ status: 401 }], { retry: new RetryPolicy() });
		await h.agent.prompt(user("go"));
		expect(h.stream.calls).toHaveLength(1);
		expect(h.events.some((event) => event.type.startsWith("auto_retry"))).toBe(false);
		expect((h.agent.messages.at(-1) as AssistantMessage).errorMessage).toMatch(/^401 /);
	});

	it("cancels a retry delay with abortRetry and ends the run with the error", async () => {
		const retry = new RetryPolicy({ baseDelayMs: 60_000 });
		const h = harness([{ status: 529 }], { retry });
		const run = h.agent.prompt(user("go"));
		await h.waitFor((event) => event.type === "auto_retry_start");
		await vi.waitUntil(() => retry.isWaiting);
		expect(retry.abortRetry()).toBe(true);
		await run;
		expect(h.events.find((event) => event.type === "auto_retry_end")).toEqual({
			type: "auto_retry_end",
			success: false,
			attempt: 1,
			finalError: "Retry cancelled",
		});
		expect(h.stream.calls).toHaveLength(1);
	});

	it("retries a stream function that throws a network error, which becomes a structured error", async () => {
		const reset = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
		let calls = 0;
		const scripted = scriptedStream(textReply("after the reset"));
		const h = harness([], {
			retry: new RetryPolicy({ baseDelayMs: 1 }),
			streamFunction: (model, context, options) => {
				calls++;
				if (calls === 1) throw reset;
				return scripted(model, context, options);
			},
		});
		await h.agent.prompt(user("go"));
		const failed = h.events.find(
			(event) =>
				event.type === "message_end" && event.message.role === "assistant" && event.message.stopReason === "error",
		);
		expect(failed?.type === "message_end" && failed.message.role === "assistant" && failed.message.error).toMatchObject(
			{
				kind: "network",
				retryable: true,
				code: "ECONNRESET",
			},
		);
		expect(calls).toBe(2);
		expect((h.agent.messages.at(-1) as AssistantMessage).stopReason).toBe("stop");
	});

	it("abort during a retry delay ends the run promptly with an aborted reply", async () => {
		const h = harness([{ status: 529 }], { retry: new RetryPolicy({ baseDelayMs: 60_000 }) });
		const controller = new AbortController();
		const run = h.agent.prompt(user("go"), controller.signal);
		await h.waitFor((event) => event.type === "auto_retry_start");
		controller.abort();
		await run;
		const last = h.agent.messages.at(-1) as AssistantMessage;
		expect(last.stopReason).toBe("aborted");
		expect(h.types().slice(-2)).toEqual(["turn_end", "agent_end"]);
	});

	it("ends with an error reply when request options throw (e.g. no API key)", async () => {
		const h = harness([textReply("unused")], {
			requestOptions: () => {
				throw new Error("No API key found for test. Set TEST_API_KEY.");
			},
		});
		await h.agent.prompt(user("go"));
		const last = h.agent.messages.at(-1) as AssistantMessage;
		expect(last).toMatchObject({ stopReason: "error", errorMessage: "No API key found for test. Set TEST_API_KEY." });
		expect(h.types()).toContain("message_start:assistant");
		expect(h.stream.calls).toHaveLength(0);
	});

	it("continue() delivers queued follow-ups as a new run", async () => {
		const h = harness([textReply("answer to queued")], { messages: [user("old"), { ...(await doneReply()) }] });
		h.agent.queueFollowUp(user("queued"), "queued");
		await h.agent.continue();
		expect(h.stream.calls[0]?.context.messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
	});
});

async function doneReply(): Promise<AssistantMessage> {
	const h = harness([textReply("earlier")]);
	await h.agent.prompt(user("x"));
	return h.agent.messages.at(-1) as AssistantMessage;
}
