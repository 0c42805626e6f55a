import { describe, expect, it } from "vitest";
import type { AssistantMessageEventStream } from "../../src/llm/event-stream.js";
import { AssistantStreamBuilder, parseToolArguments } from "../../src/llm/stream-builder.js";
import type { AssistantMessageEvent, Model } from "../../src/llm/types.js";

const model: Model = {
	id: "m",
	name: "M",
	api: "openai-completions",
	provider: "p",
	baseUrl: "http://localhost:1",
	reasoning: true,
	input: ["text"],
	contextWindow: 100_000,
	maxTokens: 1000,
	cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
};

async function collect(stream: AssistantMessageEventStream): Promise<AssistantMessageEvent[]> {
	const events: AssistantMessageEvent[] = [];
	for await (const event of stream) events.push(event);
	return events;
}

/** Event types with their content index, e.g. "text_delta@1". */
const shape = (events: AssistantMessageEvent[]) =>
	events.map((event) => ("contentIndex" in event ? `${event.type}@${event.contentIndex}` : event.type));

describe("AssistantStreamBuilder: events", () => {
	it("emits start, block events and done in order, with delta-only payloads", async () => {
		const out = new AssistantStreamBuilder(model);
		const thinking = out.startThinking();
		out.appendThinking(thinking, "let me ");
		out.appendThinking(thinking, "think");
		out.setThinkingSignature(thinking, "sig-a");
		out.setThinkingSignature(thinking, "sig-b");
		out.endBlock(thinking);
		const text = out.startText();
		out.appendText(text, "Hello");
		out.appendText(text, "");
		out.appendText(text, " world");
		out.setTextSignature(text, "msg_1");
		out.endBlock(text);
		const tool = out.startToolCall("call_1", "read");
		out.appendToolArguments(tool, '{"path":');
		out.appendToolArguments(tool, '"a.txt"}');
		out.endBlock(tool);
		out.finish("toolUse");
		const events = await collect(out.stream);
		expect(shape(events)).toEqual([
			"start",
			"thinking_start@0",
			"thinking_delta@0",
			"thinking_delta@0",
			"thinking_end@0",
			"text_start@1",
			"text_delta@1",
			"text_delta@1",
			"text_end@1",
			"toolcall_start@2",
			"toolcall_delta@2",
			"toolcall_delta@2",
			"toolcall_end@2",
			"done",
		]);
		expect(events[2]).toEqual({ type: "thinking_delta", contentIndex: 0, delta: "let me " });
		expect(events[4]).toEqual({ type: "thinking_end", contentIndex: 0, content: "let me think" });
		expect(events[8]).toEqual({ type: "text_end", contentIndex: 1, content: "Hello world" });
		expect(events[9]).toEqual({ type: "toolcall_start", contentIndex: 2, id: "call_1", toolName: "read" });
		expect(events[12]).toEqual({
			type: "toolcall_end",
			contentIndex: 2,
			toolCall: { type: "toolCall", id: "call_1", name: "read", arguments: { path: "a.txt" } },
		});
		const message = await out.stream.result();
		expect(events[13]).toEqual({ type: "done", reason: "toolUse", message });
		expect(message).toMatchObject({
			role: "assistant",
			api: "openai-completions",
			provider: "p",
			model: "m",
			stopReason: "toolUse",
			content: [
				{ type: "thinking", thinking: "let me think", thinkingSignature: "sig-asig-b" },
				{ type: "text", text: "Hello world", textSignature: "msg_1" },
				{ type: "toolCall", id: "call_1", name: "read", arguments: { path: "a.txt" } },
			],
		});
		expect(message.errorMessage).toBeUndefined();
		expect(out.hasToolCalls()).toBe(true);
	});

	it("emits start once, even when finishing an empty reply", async () => {
		const out = new AssistantStreamBuilder(model);
		out.start();
		out.start();
		out.finish("stop");
		expect(shape(await collect(out.stream))).toEqual(["start", "done"]);
		expect(out.hasToolCalls()).toBe(false);
	});

	it("closes open blocks in order on finish, so every *_start gets its *_end", async () => {
		const out = new AssistantStreamBuilder(model);
		const text = out.startText();
		out.appendText(text, "cut");
		const tool = out.startToolCall("c", "bash");
		out.appendToolArguments(tool, '{"command":"ls"}');
		out.finish("length");
		const events = await collect(out.stream);
		expect(shape(events)).toEqual([
			"start",
			"text_start@0",
			"text_delta@0",
			"toolcall_start@1",
			"toolcall_delta@1",
			"text_end@0",
			"toolcall_end@1",
			"done",
		]);
		expect((await out.stream.result()).content[1]).toEqual({
			type: "toolCall",
			id: "c",
			name: "bash",
			arguments: { command: "ls" },
		});
	});

	it("closes open blocks on fail and reports error or aborted", async () => {
		const failed = new AssistantStreamBuilder(model);
		failed.startThinking();
		failed.fail("529 overloaded", false);
		const events = await collect(failed.stream);
		expect(shape(events)).toEqual(["start", "thinking_start@0", "thinking_end@0", "error"]);
		expect(events[3]).toMatchObject({ type: "error", reason: "error" });
		expect(await failed.stream.result()).toMatchObject({ stopReason: "error", errorMessage: "529 overloaded" });

		const aborted = new AssistantStreamBuilder(model);
		aborted.fail("Request was aborted", true);
		expect(shape(await collect(aborted.stream))).toEqual(["start", "error"]);
		expect(await aborted.stream.result()).toMatchObject({ stopReason: "aborted", errorMessage: "Request was aborted" });
	});

	it("ignores deltas to ended blocks, wrong kinds, unknown indexes and a second end", async () => {
		const out = new AssistantStreamBuilder(model);
		const text = out.startText();
		out.appendThinking(text, "not thinking");
		out.appendToolArguments(text, "{}");
		out.appendText(7, "nowhere");
		out.endBlock(text);
		out.endBlock(text);
		out.appendText(text, "late");
		out.finish("stop");
		expect(shape(await collect(out.stream))).toEqual(["start", "text_start@0", "text_end@0", "done"]);
		expect((await out.stream.result()).content).toEqual([{ type: "text", text: "" }]);
	});

	it("ignores every call after the end and keeps the final message as delivered", async () => {
		const out = new AssistantStreamBuilder(model);
		const text = out.startText();
		out.appendText(text, "final");
		out.setUsage({ input: 10, output: 5 });
		out.finish("stop");
		const delivered = structuredClone(await out.stream.result());

		out.appendText(text, " more");
		out.setTextSignature(text, "late-signature");
		out.startText();
		out.startThinking();
		out.startToolCall("late", "read");
		out.setUsage({ input: 999 });
		out.fail("late failure", false);
		out.finish("length");

		expect(out.isFinished).toBe(true);
		expect(shape(await collect(out.stream))).toEqual(["start", "text_start@0", "text_delta@0", "text_end@0", "done"]);
		expect(await out.stream.result()).toEqual(delivered);
	});

	it("accepts whole arguments via setToolArguments", async () => {
		const out = new AssistantStreamBuilder(model);
		const tool = out.startToolCall("c", "write");
		out.setToolArguments(tool, { path: "x", content: "y" });
		out.setToolCallSignature(tool, "thought");
		out.finish("toolUse");
		const events = await collect(out.stream);
		expect(events[2]).toEqual({ type: "toolcall_delta", contentIndex: 0, delta: '{"path":"x","content":"y"}' });
		expect((await out.stream.result()).content[0]).toEqual({
			type: "toolCall",
			id: "c",
			name: "write",
			arguments: { path: "x", content: "y" },
			thoughtSignature: "thought",
		});
	});

	it("marks redacted thinking", async () => {
		const out = new AssistantStreamBuilder(model);
		const index = out.startThinking();
		out.setThinkingSignature(index, "opaque", true);
		out.finish("stop");
		expect((await out.stream.result()).content[0]).toEqual({
			type: "thinking",
			thinking: "",
			thinkingSignature: "opaque",
			redacted: true,
		});
	});
});

describe("AssistantStreamBuilder: usage and cost", () => {
	it("merges usage reports and prices them at the model's rates", async () => {
		const out = new AssistantStreamBuilder(model);
		out.setUsage({ input: 1_000_000, cacheRead: 2_000_000 });
		expect(out.message.usage.totalTokens).toBe(3_000_000);
		out.setUsage({ output: 500_000, cacheWrite: 100_000 });
		out.finish("stop");
		const { usage } = await out.stream.result();
		expect(usage.input).toBe(1_000_000);
		expect(usage.output).toBe(500_000);
		expect(usage.cacheRead).toBe(2_000_000);
		expect(usage.cacheWrite).toBe(100_000);
		expect(usage.totalTokens).toBe(3_600_000);
		expect(usage.cost.input).toBeCloseTo(3, 10);
		expect(usage.cost.output).toBeCloseTo(7.5, 10);
		expect(usage.cost.cacheRead).toBeCloseTo(0.6, 10);
		expect(usage.cost.cacheWrite).toBeCloseTo(0.375, 10);
		expect(usage.cost.total).toBeCloseTo(11.475, 10);
	});

	it("starts with zero usage and lets a later report replace an earlier one", () => {
		const out = new AssistantStreamBuilder(model);
		expect(out.message.usage).toEqual({
			input: 0,
			output: 0,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: 0,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		});
		out.setUsage({ output: 10 });
		out.setUsage({ output: 20 });
		expect(out.message.usage.output).toBe(20);
		expect(out.message.usage.totalTokens).toBe(20);
		expect(out.message.usage.cost.output).toBeCloseTo(0.0003, 12);
	});
});

describe("parseToolArguments", () => {
	it("parses an object and treats blank input as no arguments", () => {
		expect(parseToolArguments('{"a":1,"b":[true]}')).toEqual({ a: 1, b: [true] });
		expect(parseToolArguments("")).toEqual({});
		expect(parseToolArguments("  \n")).toEqual({});
	});

	it("keeps invalid JSON as __raw with the parse error", () => {
		const parsed = parseToolArguments('{"a":');
		expect(parsed.__raw).toBe('{"a":');
		expect(typeof parsed.__parseError).toBe("string");
		expect(String(parsed.__parseError).length).toBeGreaterThan(0);
	});

	it.each([["[1,2]"], ["42"], ['"text"'], ["null"]])("keeps non-object JSON %s as __raw", (json) => {
		expect(parseToolArguments(json)).toEqual({ __raw: json });
	});
});

describe("AssistantStreamBuilder: a length stop that is an overflow", () => {
	it("ends as a context-overflow error when the prompt filled the window and no output was counted", async () => {
		const out = new AssistantStreamBuilder(model);
		out.appendText(out.startText(), "The answer beg");
		out.setUsage({ input: 98_000, cacheRead: 1_500, output: 0 });
		out.finish("length");
		const message = await out.stream.result();
		expect(message.stopReason).toBe("error");
		expect(message.error?.kind).toBe("context_overflow");
		expect(message.errorMessage).toBe(
			"Context overflow: the prompt (99500 tokens) filled the 100000-token context window, and the model stopped without output",
		);
	});

	it("stays a length stop with output counted, or with room left in the window", async () => {
		for (const usage of [
			{ input: 99_500, output: 3 },
			{ input: 98_000, output: 0 },
		]) {
			const out = new AssistantStreamBuilder(model);
			out.setUsage(usage);
			out.finish("length");
			expect((await out.stream.result()).stopReason).toBe("length");
		}
	});
});
