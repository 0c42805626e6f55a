import { describe, expect, it, vi } from "vitest";
import { IMAGE_ONLY_RESULT_TEXT, TOOL_IMAGES_TEXT } from "../../src/llm/providers/openai-shared.js";
import { streamModel } from "../../src/llm/registry.js";
import type { AssistantMessageEvent, Context } from "../../src/llm/types.js";
import { textReply } from "../support/llm-server.js";
import { TINY_PNG, testModel } from "../support/models.js";
import { assistantWith, collect, hello, requestBody, useLlmServer } from "./openai-test-helpers.js";

const API = "openai-completions";
const ctx = useLlmServer();

describe("openai-completions streaming", () => {
	it("streams text as start, text_start, deltas, text_end, done", async () => {
		ctx.server.enqueue(textReply("Hello world", { usage: { input: 12, output: 3 } }));
		const model = testModel(ctx.server, API);
		const events = await collect(streamModel(model, { systemPrompt: "Be brief.", ...hello }));

		expect(events.map((event) => event.type)).toEqual(["start", "text_start", "text_delta", "text_end", "done"]);
		expect(events[2]).toEqual({ type: "text_delta", contentIndex: 0, delta: "Hello world" });
		expect(events[3]).toEqual({ type: "text_end", contentIndex: 0, content: "Hello world" });
		const done = events[4];
		if (done?.type !== "done") throw new Error("expected done");
		expect(done.reason).toBe("stop");
		expect(done.message.content).toEqual([{ type: "text", text: "Hello world" }]);
		expect(done.message.usage.input).toBe(12);
		expect(done.message.usage.output).toBe(3);

		expect(ctx.server.requests[0]?.path).toBe("/v1/chat/completions");
		expect(requestBody(ctx.server)).toEqual({
			model: "test-openai-completions",
			messages: [
				{ role: "system", content: "Be brief." },
				{ role: "user", content: "Hi" },
			],
			stream: true,
			stream_options: { include_usage: true },
		});
	});

	it("streams text split into several pieces", async () => {
		ctx.server.enqueue({ blocks: [{ type: "text", text: "Hello world", chunks: ["Hel", "lo ", "world"] }] });
		const events = await collect(streamModel(testModel(ctx.server, API), hello));
		const deltas = events.flatMap((event) => (event.type === "text_delta" ? [event.delta] : []));
		expect(deltas).toEqual(["Hel", "lo ", "world"]);
	});

	it("streams reasoning_content as thinking, then the text", async () => {
		ctx.server.enqueue({
			blocks: [
				{ type: "thinking", text: "Let me think.", chunks: ["Let me ", "think."] },
				{ type: "text", text: "Answer" },
			],
		});
		const model = testModel(ctx.server, API, { reasoning: true });
		const events = await collect(streamModel(model, hello, { reasoning: "high" }));

		expect(events.map((event) => event.type)).toEqual([
			"start",
			"thinking_start",
			"thinking_delta",
			"thinking_delta",
			"thinking_end",
			"text_start",
			"text_delta",
			"text_end",
			"done",
		]);
		expect(events[4]).toEqual({ type: "thinking_end", contentIndex: 0, content: "Let me think." });
		expect(events[7]).toEqual({ type: "text_end", contentIndex: 1, content: "Answer" });
		expect(requestBody(ctx.server).reasoning_effort).toBe("high");
	});

	it("streams a tool call whose arguments arrive in 4 pieces", async () => {
		ctx.server.enqueue({
			blocks: [
				{ type: "toolCall", id: "call_abc", name: "read", arguments: { path: "src/index.ts" }, argumentChunks: 4 },
			],
		});
		const parameters = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
		const context: Context = {
			...hello,
			tools: [{ name: "read", description: "Read a file", parameters }],
		};
		const events = await collect(streamModel(testModel(ctx.server, API), context));

		expect(events.map((event) => event.type)).toEqual([
			"start",
			"toolcall_start",
			"toolcall_delta",
			"toolcall_delta",
			"toolcall_delta",
			"toolcall_delta",
			"toolcall_end",
			"done",
		]);
		expect(events[1]).toEqual({ type: "toolcall_start", contentIndex: 0, id: "call_abc", toolName: "read" });
		const deltas = events.flatMap((event) => (event.type === "toolcall_delta" ? [event.delta] : []));
		expect(deltas.join("")).toBe('{"path":"src/index.ts"}');
		expect(events[6]).toEqual({
			type: "toolcall_end",
			contentIndex: 0,
			toolCall: { type: "toolCall", id: "call_abc", name: "read", arguments: { path: "src/index.ts" } },
		});
		const done = events[7];
		if (done?.type !== "done") throw new Error("expected done");
		expect(done.reason).toBe("toolUse");
		expect(done.message.stopReason).toBe("toolUse");
		expect(requestBody(ctx.server).tools).toEqual([
			{ type: "function", function: { name: "read", description: "Read a file", parameters } },
		]);
	});

	it("sends tool results, user images as data URLs and tool-result images in a user message", async () => {
		const model = testModel(ctx.server, API);
		const context: Context = {
			messages: [
				{
					role: "user",
					content: [
						{ type: "text", text: "What is this?" },
						{ type: "image", data: TINY_PNG, mimeType: "image/png" },
					],
					timestamp: 1,
				},
				assistantWith(
					[
						{ type: "text", text: "Let me look." },
						{ type: "toolCall", id: "call_1", name: "screenshot", arguments: { full: true } },
						{ type: "toolCall", id: "call_2", name: "read", arguments: { path: "a.txt" } },
					],
					model,
				),
				{
					role: "toolResult",
					toolCallId: "call_1",
					toolName: "screenshot",
					content: [{ type: "image", data: TINY_PNG, mimeType: "image/png" }],
					isError: false,
					timestamp: 3,
				},
				{
					role: "toolResult",
					toolCallId: "call_2",
					toolName: "read",
					content: [
						{ type: "text", text: "line 1" },
						{ type: "text", text: "line 2" },
					],
					isError: false,
					timestamp: 4,
				},
			],
		};
		await streamModel(model, context).result();

		const dataUrl = `data:image/png;base64,${TINY_PNG}`;
		expect(requestBody(ctx.server).messages).toEqual([
			{
				role: "user",
				content: [
					{ type: "text", text: "What is this?" },
					{ type: "image_url", image_url: { url: dataUrl } },
				],
			},
			{
				role: "assistant",
				content: "Let me look.",
				tool_calls: [
					{ id: "call_1", type: "function", function: { name: "screenshot", arguments: '{"full":true}' } },
					{ id: "call_2", type: "function", function: { name: "read", arguments: '{"path":"a.txt"}' } },
				],
			},
			{ role: "tool", tool_call_id: "call_1", content: IMAGE_ONLY_RESULT_TEXT },
			{ role: "tool", tool_call_id: "call_2", content: "line 1\nline 2" },
			{
				role: "user",
				content: [
					{ type: "text", text: TOOL_IMAGES_TEXT },
					{ type: "image_url", image_url: { url: dataUrl } },
				],
			},
		]);
	});

	it("sends model and request headers, and the key as a Bearer token", async () => {
		const model = testModel(ctx.server, API, { headers: { "x-model-header": "from-model", "x-both": "model" } });
		await streamModel(model, hello, {
			apiKey: "sk-test-key",
			headers: { "x-request-header": "from-request", "x-both": "request" },
		}).result();

		const headers = ctx.server.requests[0]?.headers ?? {};
		expect(headers.authorization).toBe("Bearer sk-test-key");
		expect(headers["x-model-header"]).toBe("from-model");
		expect(headers["x-request-header"]).toBe("from-request");
		expect(headers["x-both"]).toBe("request");
	});

	it("sends a placeholder key when there is none (local servers need no key)", async () => {
		const message = await streamModel(testModel(ctx.server, API), hello).result();
		expect(message.stopReason).toBe("stop");
		expect(ctx.server.requests[0]?.headers.authorization).toBe("Bearer atomic-no-api-key");
	});

	it("splits cached prompt tokens out of the input and prices them", async () => {
		ctx.server.enqueue(textReply("ok", { usage: { input: 100, output: 50, cacheRead: 40 } }));
		const message = await streamModel(testModel(ctx.server, API), hello).result();

		expect(message.usage.input).toBe(100);
		expect(message.usage.cacheRead).toBe(40);
		expect(message.usage.output).toBe(50);
		expect(message.usage.cacheWrite).toBe(0);
		expect(message.usage.totalTokens).toBe(190);
		// Prices per million: input 3, output 15, cache read 0.3.
		expect(message.usage.cost.input).toBeCloseTo(0.0003, 12);
		expect(message.usage.cost.output).toBeCloseTo(0.00075, 12);
		expect(message.usage.cost.cacheRead).toBeCloseTo(0.000012, 12);
		expect(message.usage.cost.total).toBeCloseTo(0.001062, 12);
	});

	it("does not ask for usage when the server cannot stream it", async () => {
		ctx.server.enqueue(textReply("ok", { usage: { input: 100, output: 50 } }));
		const model = testModel(ctx.server, API, { compat: { supportsUsageInStreaming: false } });
		const message = await streamModel(model, hello).result();
		expect(requestBody(ctx.server).stream_options).toBeUndefined();
		expect(message.usage.totalTokens).toBe(0);
		expect(message.stopReason).toBe("stop");
	});

	it("maps finish_reason length to stop reason length", async () => {
		ctx.server.enqueue(textReply("cut", { stopReason: "length" }));
		const message = await streamModel(testModel(ctx.server, API), hello, { maxTokens: 5 }).result();
		expect(message.stopReason).toBe("length");
		expect(message.content).toEqual([{ type: "text", text: "cut" }]);
		expect(requestBody(ctx.server).max_tokens).toBe(5);
	});

	it("ends with aborted when the caller aborts mid-stream, and the server sees the disconnect", async () => {
		ctx.server.enqueue({ blocks: [{ type: "text", text: "one two three four", chunks: 4 }], delayMs: 50 });
		const controller = new AbortController();
		const events: AssistantMessageEvent[] = [];
		for await (const event of streamModel(testModel(ctx.server, API), hello, { signal: controller.signal })) {
			events.push(event);
			if (event.type === "text_delta") controller.abort();
		}
		const last = events.at(-1);
		if (last?.type !== "error") throw new Error("expected an error event");
		expect(last.reason).toBe("aborted");
		expect(last.message.stopReason).toBe("aborted");
		expect(events.filter((event) => event.type === "text_delta")).toHaveLength(1);
		await vi.waitFor(() => expect(ctx.server.requests[0]?.clientDisconnected).toBe(true));
	});
});
