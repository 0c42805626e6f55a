import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { streamModel } from "../../src/llm/registry.js";
import type { AssistantMessage, Context } from "../../src/llm/types.js";
import { LlmServer } from "../support/llm-server.js";
import { testModel } from "../support/models.js";
import { bodyOf, collectEvents, finalMessage, userMessage } from "./anthropic-test-helpers.js";

let server: LlmServer;

beforeAll(async () => {
	server = await LlmServer.start();
});

afterAll(async () => {
	await server.close();
});

beforeEach(() => {
	server.reset();
});

const hello: Context = { messages: [userMessage("Hello")] };

describe("anthropic-messages streaming", () => {
	it("streams text as start, text_start, one text_delta per piece, text_end, done", async () => {
		server.enqueue({ blocks: [{ type: "text", text: "Hello there, world", chunks: ["Hello", " there", ", world"] }] });
		const events = await collectEvents(streamModel(testModel(server, "anthropic-messages"), hello));

		expect(events.map((event) => event.type)).toEqual([
			"start",
			"text_start",
			"text_delta",
			"text_delta",
			"text_delta",
			"text_end",
			"done",
		]);
		const deltas = events.flatMap((event) => (event.type === "text_delta" ? [event.delta] : []));
		expect(deltas).toEqual(["Hello", " there", ", world"]);
		expect(events[5]).toEqual({ type: "text_end", contentIndex: 0, content: "Hello there, world" });
		const message = finalMessage(events);
		expect(message.content).toEqual([{ type: "text", text: "Hello there, world" }]);
		expect(message.stopReason).toBe("stop");
		expect(message.api).toBe("anthropic-messages");
		expect(message.model).toBe("test-anthropic-messages");
		expect(server.requests[0]?.path).toBe("/v1/messages");
	});

	it("maps a max_tokens stop to length", async () => {
		server.enqueue({ blocks: [{ type: "text", text: "cut" }], stopReason: "length" });
		const message = await streamModel(testModel(server, "anthropic-messages"), hello).result();
		expect(message.stopReason).toBe("length");
	});

	it("streams thinking with its signature and sends it back on the next request", async () => {
		const model = testModel(server, "anthropic-messages", { reasoning: true });
		server.enqueue({
			blocks: [
				{ type: "thinking", text: "Let me think.", chunks: ["Let me", " think."], signature: "sig-abc" },
				{ type: "text", text: "Answer" },
			],
		});
		const events = await collectEvents(streamModel(model, hello, { reasoning: "medium" }));

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
		const first = finalMessage(events);
		expect(first.content).toEqual([
			{ type: "thinking", thinking: "Let me think.", thinkingSignature: "sig-abc" },
			{ type: "text", text: "Answer" },
		]);
		expect(bodyOf(server.requests[0]).thinking).toEqual({ type: "enabled", budget_tokens: 7168 });

		await streamModel(model, { messages: [userMessage("Hello"), first, userMessage("And?")] }).result();
		expect(bodyOf(server.requests[1]).messages).toEqual([
			{ role: "user", content: [{ type: "text", text: "Hello" }] },
			{
				role: "assistant",
				content: [
					{ type: "thinking", thinking: "Let me think.", signature: "sig-abc" },
					{ type: "text", text: "Answer" },
				],
			},
			{ role: "user", content: [{ type: "text", text: "And?", cache_control: { type: "ephemeral" } }] },
		]);
	});

	it("keeps redacted thinking as a redacted block and sends its data back", async () => {
		const model = testModel(server, "anthropic-messages", { reasoning: true });
		server.enqueue({
			blocks: [
				{ type: "thinking", text: "", redacted: true, signature: "opaque-data" },
				{ type: "text", text: "Done" },
			],
		});
		const first = await streamModel(model, hello, { reasoning: "low" }).result();
		expect(first.content[0]).toEqual({
			type: "thinking",
			thinking: "",
			thinkingSignature: "opaque-data",
			redacted: true,
		});

		await streamModel(model, { messages: [userMessage("Hello"), first, userMessage("Next")] }).result();
		const messages = bodyOf(server.requests[1]).messages as { content: unknown[] }[];
		expect(messages[1]?.content[0]).toEqual({ type: "redacted_thinking", data: "opaque-data" });
	});

	it("streams a tool call whose arguments arrive in four pieces", async () => {
		const args = { path: "src/index.ts", limit: 20 };
		server.enqueue({
			blocks: [{ type: "toolCall", id: "toolu_01", name: "read", arguments: args, argumentChunks: 4 }],
		});
		const events = await collectEvents(streamModel(testModel(server, "anthropic-messages"), hello));

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
		expect(events[1]).toEqual({ type: "toolcall_start", contentIndex: 0, id: "toolu_01", toolName: "read" });
		const pieces = events.flatMap((event) => (event.type === "toolcall_delta" ? [event.delta] : []));
		expect(pieces.join("")).toBe(JSON.stringify(args));
		expect(events[6]).toEqual({
			type: "toolcall_end",
			contentIndex: 0,
			toolCall: { type: "toolCall", id: "toolu_01", name: "read", arguments: args },
		});
		expect(finalMessage(events).stopReason).toBe("toolUse");
	});

	it("reports usage and cost from the message_start and message_delta events", async () => {
		server.enqueue({
			blocks: [{ type: "text", text: "ok" }],
			usage: { input: 100, output: 50, cacheRead: 20, cacheWrite: 10 },
		});
		const message = await streamModel(testModel(server, "anthropic-messages"), hello).result();

		expect(message.usage.input).toBe(100);
		expect(message.usage.output).toBe(50);
		expect(message.usage.cacheRead).toBe(20);
		expect(message.usage.cacheWrite).toBe(10);
		expect(message.usage.totalTokens).toBe(180);
		// testModel prices per million tokens: input 3, output 15, cacheRead 0.3, cacheWrite 3.75.
		expect(message.usage.cost.input).toBeCloseTo(0.0003, 12);
		expect(message.usage.cost.output).toBeCloseTo(0.00075, 12);
		expect(message.usage.cost.cacheRead).toBeCloseTo(0.000006, 12);
		expect(message.usage.cost.cacheWrite).toBeCloseTo(0.0000375, 12);
		expect(message.usage.cost.total).toBeCloseTo(0.0010935, 12);
	});

	it("ends with an aborted error when the caller aborts mid-stream, and closes the connection", async () => {
		server.enqueue({ blocks: [{ type: "text", text: "one two three four", chunks: 4 }], delayMs: 50 });
		const controller = new AbortController();
		const stream = streamModel(testModel(server, "anthropic-messages"), hello, { signal: controller.signal });
		const events = [];
		for await (const event of stream) {
			events.push(event);
			if (event.type === "text_delta") controller.abort();
		}

		const last = events[events.length - 1];
		expect(last?.type).toBe("error");
		expect(last?.type === "error" && last.reason).toBe("aborted");
		const message = last?.type === "error" ? last.message : undefined;
		expect(message?.stopReason).toBe("aborted");
		expect(message?.errorMessage).toBe("Request was aborted");
		expect(events.filter((event) => event.type === "text_delta")).toHaveLength(1);
		await vi.waitFor(() => expect(server.requests[0]?.clientDisconnected).toBe(true));
	});

	it("keeps the partial reply of an aborted stream out of the next request", async () => {
		const aborted: AssistantMessage = {
			...(await streamModel(testModel(server, "anthropic-messages"), hello).result()),
			stopReason: "aborted",
		};
		await streamModel(testModel(server, "anthropic-messages"), {
			messages: [userMessage("Hello"), aborted, userMessage("Again")],
		}).result();
		const messages = bodyOf(server.requests[1]).messages as { role: string }[];
		expect(messages.map((message) => message.role)).toEqual(["user", "user"]);
	});
});
