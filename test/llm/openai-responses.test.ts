import { describe, expect, it, vi } from "vitest";
import { IMAGE_ONLY_RESULT_TEXT, TOOL_IMAGES_TEXT } from "../../src/llm/providers/openai-shared.js";
import { streamModel } from "../../src/llm/registry.js";
import type { AssistantMessageEvent, Context, Message } from "../../src/llm/types.js";
import { textReply } from "../support/llm-server.js";
import { TINY_PNG, testModel } from "../support/models.js";
import { assistantWith, collect, hello, hi, requestBody, useLlmServer } from "./openai-test-helpers.js";

const API = "openai-responses";
const ctx = useLlmServer();

describe("openai-responses streaming", () => {
	it("streams text as start, text_start, deltas, text_end, done", async () => {
		ctx.server.enqueue({ blocks: [{ type: "text", text: "Hello world", chunks: ["Hello", " world"] }] });
		const model = testModel(ctx.server, API);
		const events = await collect(streamModel(model, { systemPrompt: "Be brief.", ...hello }));

		expect(events).toEqual([
			{ type: "start" },
			{ type: "text_start", contentIndex: 0 },
			{ type: "text_delta", contentIndex: 0, delta: "Hello" },
			{ type: "text_delta", contentIndex: 0, delta: " world" },
			{ type: "text_end", contentIndex: 0, content: "Hello world" },
			expect.objectContaining({ type: "done", reason: "stop" }),
		]);
		const done = events[5];
		if (done?.type !== "done") throw new Error("expected done");
		expect(done.message.content).toEqual([{ type: "text", text: "Hello world", textSignature: "msg_0" }]);

		expect(ctx.server.requests[0]?.path).toBe("/v1/responses");
		expect(requestBody(ctx.server)).toEqual({
			model: "test-openai-responses",
			instructions: "Be brief.",
			input: [{ role: "user", content: [{ type: "input_text", text: "Hi" }] }],
			stream: true,
			store: false,
		});
	});

	it("streams reasoning summaries as thinking and sends the reasoning item back to the same model only", async () => {
		const model = testModel(ctx.server, API, { reasoning: true });
		ctx.server.enqueue({
			blocks: [
				{ type: "thinking", text: "Step one.\n\nStep two.", signature: "encrypted-1" },
				{ type: "text", text: "Answer" },
			],
		});
		const events = await collect(streamModel(model, hello, { reasoning: "medium" }));
		expect(events.map((event) => event.type)).toEqual([
			"start",
			"thinking_start",
			"thinking_delta",
			"thinking_delta",
			"thinking_delta",
			"thinking_end",
			"text_start",
			"text_delta",
			"text_end",
			"done",
		]);
		const thinkingDeltas = events.flatMap((event) => (event.type === "thinking_delta" ? [event.delta] : []));
		expect(thinkingDeltas).toEqual(["Step one.", "\n\n", "Step two."]);
		expect(events[5]).toEqual({ type: "thinking_end", contentIndex: 0, content: "Step one.\n\nStep two." });
		expect(requestBody(ctx.server)).toMatchObject({
			reasoning: { effort: "medium", summary: "auto" },
			include: ["reasoning.encrypted_content"],
		});

		const done = events.at(-1);
		if (done?.type !== "done") throw new Error("expected done");
		const reasoningItem = {
			type: "reasoning",
			id: "rs_0",
			summary: [
				{ type: "summary_text", text: "Step one." },
				{ type: "summary_text", text: "Step two." },
			],
			encrypted_content: "encrypted-1",
		};
		const thinking = done.message.content[0];
		if (thinking?.type !== "thinking") throw new Error("expected thinking first");
		expect(JSON.parse(thinking.thinkingSignature ?? "")).toEqual(reasoningItem);

		const followUp: Context = {
			messages: [hi, done.message, { role: "user", content: "And then?", timestamp: 3 }],
		};
		await streamModel(model, followUp, { reasoning: "medium" }).result();
		expect(requestBody(ctx.server, 1).input).toEqual([
			{ role: "user", content: [{ type: "input_text", text: "Hi" }] },
			reasoningItem,
			{
				type: "message",
				role: "assistant",
				id: "msg_1",
				status: "completed",
				content: [{ type: "output_text", text: "Answer", annotations: [] }],
			},
			{ role: "user", content: [{ type: "input_text", text: "And then?" }] },
		]);

		const other = testModel(ctx.server, API, { id: "other-model", reasoning: true });
		await streamModel(other, followUp, { reasoning: "medium" }).result();
		expect(requestBody(ctx.server, 2).input).toEqual([
			{ role: "user", content: [{ type: "input_text", text: "Hi" }] },
			{ type: "message", role: "assistant", content: "Step one.\n\nStep two." },
			{ type: "message", role: "assistant", content: "Answer" },
			{ role: "user", content: [{ type: "input_text", text: "And then?" }] },
		]);
	});

	it("streams a tool call whose arguments arrive in 4 pieces and sends it back with its result", async () => {
		ctx.server.enqueue({
			blocks: [
				{ type: "toolCall", id: "call_abc", name: "read", arguments: { path: "src/index.ts" }, argumentChunks: 4 },
			],
		});
		const parameters = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
		const model = testModel(ctx.server, API);
		const context: Context = { ...hello, tools: [{ name: "read", description: "Read a file", parameters }] };
		const events = await collect(streamModel(model, context));

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
		expect(events[1]).toEqual({ type: "toolcall_start", contentIndex: 0, id: "call_abc|fc_abc", toolName: "read" });
		const deltas = events.flatMap((event) => (event.type === "toolcall_delta" ? [event.delta] : []));
		expect(deltas.join("")).toBe('{"path":"src/index.ts"}');
		const toolCall = { type: "toolCall", id: "call_abc|fc_abc", name: "read", arguments: { path: "src/index.ts" } };
		expect(events[6]).toEqual({ type: "toolcall_end", contentIndex: 0, toolCall });
		const done = events[7];
		if (done?.type !== "done") throw new Error("expected done");
		expect(done.reason).toBe("toolUse");
		expect(done.message.stopReason).toBe("toolUse");
		expect(requestBody(ctx.server).tools).toEqual([
			{ type: "function", name: "read", description: "Read a file", parameters, strict: false },
		]);

		const result: Message = {
			role: "toolResult",
			toolCallId: "call_abc|fc_abc",
			toolName: "read",
			content: [{ type: "text", text: "export {};" }],
			isError: false,
			timestamp: 3,
		};
		await streamModel(model, { ...context, messages: [hi, done.message, result] }).result();
		expect(requestBody(ctx.server, 1).input).toEqual([
			{ role: "user", content: [{ type: "input_text", text: "Hi" }] },
			{ type: "function_call", call_id: "call_abc", name: "read", arguments: '{"path":"src/index.ts"}', id: "fc_abc" },
			{ type: "function_call_output", call_id: "call_abc", output: "export {};" },
		]);
	});

	it("sends user images as data URLs and tool-result images in a following user message", async () => {
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
				// A call from another provider: its id has no item part.
				{
					...assistantWith([{ type: "toolCall", id: "toolu_1", name: "screenshot", arguments: {} }], model),
					provider: "anthropic",
					api: "anthropic-messages",
					model: "claude",
				},
				{
					role: "toolResult",
					toolCallId: "toolu_1",
					toolName: "screenshot",
					content: [{ type: "image", data: TINY_PNG, mimeType: "image/png" }],
					isError: false,
					timestamp: 3,
				},
			],
		};
		await streamModel(model, context).result();

		const dataUrl = `data:image/png;base64,${TINY_PNG}`;
		expect(requestBody(ctx.server).input).toEqual([
			{
				role: "user",
				content: [
					{ type: "input_text", text: "What is this?" },
					{ type: "input_image", detail: "auto", image_url: dataUrl },
				],
			},
			{ type: "function_call", call_id: "toolu_1", name: "screenshot", arguments: "{}" },
			{ type: "function_call_output", call_id: "toolu_1", output: IMAGE_ONLY_RESULT_TEXT },
			{
				role: "user",
				content: [
					{ type: "input_text", text: TOOL_IMAGES_TEXT },
					{ type: "input_image", detail: "auto", image_url: dataUrl },
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

	it("splits cached input tokens out and prices them", async () => {
		ctx.server.enqueue(textReply("ok", { usage: { input: 1000, output: 200, cacheRead: 500 } }));
		const message = await streamModel(testModel(ctx.server, API), hello).result();

		expect(message.usage.input).toBe(1000);
		expect(message.usage.cacheRead).toBe(500);
		expect(message.usage.output).toBe(200);
		expect(message.usage.cacheWrite).toBe(0);
		expect(message.usage.totalTokens).toBe(1700);
		// Prices per million: input 3, output 15, cache read 0.3.
		expect(message.usage.cost.input).toBeCloseTo(0.003, 12);
		expect(message.usage.cost.output).toBeCloseTo(0.003, 12);
		expect(message.usage.cost.cacheRead).toBeCloseTo(0.00015, 12);
		expect(message.usage.cost.total).toBeCloseTo(0.00615, 12);
	});

	it("maps response.incomplete (max_output_tokens) to stop reason length", async () => {
		ctx.server.enqueue(textReply("cut", { stopReason: "length", usage: { input: 7, output: 5 } }));
		const message = await streamModel(testModel(ctx.server, API), hello, { maxTokens: 5 }).result();
		expect(message.stopReason).toBe("length");
		expect(message.content).toEqual([{ type: "text", text: "cut", textSignature: "msg_0" }]);
		expect(message.usage.output).toBe(5);
		expect(requestBody(ctx.server).max_output_tokens).toBe(5);
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
