import { Type } from "typebox";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { AssistantMessageEventStream } from "../../src/llm/event-stream.js";
import { streamModel } from "../../src/llm/registry.js";
import type {
	AssistantMessage,
	AssistantMessageEvent,
	Context,
	Message,
	Model,
	StreamOptions,
} from "../../src/llm/types.js";
import { LlmServer, textReply } from "../support/llm-server.js";
import { TINY_PNG, testModel } from "../support/models.js";
import { errorClass } from "./error-helpers.js";

// Counts loads of the SDK module, to prove that only a request loads it.
const sdk = vi.hoisted(() => ({ loads: 0 }));
vi.mock("@google/genai", async (importOriginal) => {
	sdk.loads++;
	return importOriginal();
});
const sdkLoadsAtImport = sdk.loads;

const API = "google-generative-ai";
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

function gemini(overrides: Partial<Model> = {}): Model {
	return testModel(server, API, overrides);
}

async function collect(stream: AssistantMessageEventStream): Promise<AssistantMessageEvent[]> {
	const events: AssistantMessageEvent[] = [];
	for await (const event of stream) events.push(event);
	return events;
}

/** Streams one reply and returns its events (terminal events without their message) and final message. */
async function run(model: Model, context: Context, options: StreamOptions = {}) {
	const stream = streamModel(model, context, options);
	const events = await collect(stream);
	const shape = events.map((event) =>
		event.type === "done" || event.type === "error" ? { type: event.type, reason: event.reason } : event,
	);
	return { events: shape, message: await stream.result() };
}

function ask(text: string, extra: Partial<Context> = {}): Context {
	return { messages: [{ role: "user", content: text, timestamp: 1 }], ...extra };
}

function requestBody(index = 0): Record<string, unknown> {
	return server.requests[index]?.body as Record<string, unknown>;
}

function assistant(model: Model, content: AssistantMessage["content"], stopReason: AssistantMessage["stopReason"]) {
	const message: AssistantMessage = {
		role: "assistant",
		content,
		api: model.api,
		provider: model.provider,
		model: model.id,
		usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: emptyCost() },
		stopReason,
		timestamp: 2,
	};
	return message;
}

function emptyCost() {
	return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
}

describe("google-generative-ai provider", () => {
	it("loads the SDK on the first request, not when the registry or the request builder is imported", async () => {
		expect(sdkLoadsAtImport).toBe(0);
		server.enqueue(textReply("hi"));
		await streamModel(gemini(), ask("hello")).result();
		// A module loads once, so this holds whichever tests ran before.
		expect(sdk.loads).toBe(1);
	});

	it("streams text and posts to streamGenerateContent with alt=sse", async () => {
		server.enqueue({ blocks: [{ type: "text", text: "Hello world", chunks: ["Hello", " world"] }] });
		const { events, message } = await run(gemini(), ask("hi", { systemPrompt: "Be terse." }));
		expect(events).toEqual([
			{ type: "start" },
			{ type: "text_start", contentIndex: 0 },
			{ type: "text_delta", contentIndex: 0, delta: "Hello" },
			{ type: "text_delta", contentIndex: 0, delta: " world" },
			{ type: "text_end", contentIndex: 0, content: "Hello world" },
			{ type: "done", reason: "stop" },
		]);
		expect(message.content).toEqual([{ type: "text", text: "Hello world" }]);
		expect(message.stopReason).toBe("stop");
		expect(server.requests[0]?.path).toBe("/v1beta/models/test-google-generative-ai:streamGenerateContent?alt=sse");
		expect(requestBody()).toEqual({
			contents: [{ role: "user", parts: [{ text: "hi" }] }],
			systemInstruction: { role: "user", parts: [{ text: "Be terse." }] },
			generationConfig: { maxOutputTokens: 8192 },
		});
	});

	it("sends temperature and the caller's output cap", async () => {
		await run(gemini(), ask("hi"), { temperature: 0.2, maxTokens: 100 });
		expect(requestBody().generationConfig).toEqual({ temperature: 0.2, maxOutputTokens: 100 });
	});

	it("sends the api key and the model's and caller's headers", async () => {
		await run(gemini({ headers: { "x-model": "m", "x-both": "model" } }), ask("hi"), {
			apiKey: "secret-key",
			headers: { "x-call": "c", "x-both": "call" },
		});
		const headers = server.requests[0]?.headers ?? {};
		expect(headers["x-goog-api-key"]).toBe("secret-key");
		expect([headers["x-model"], headers["x-call"], headers["x-both"]]).toEqual(["m", "c", "call"]);
	});

	it("sends a placeholder key when none is configured", async () => {
		await run(gemini(), ask("hi"));
		expect(server.requests[0]?.headers["x-goog-api-key"]).toBe("no-key");
	});

	it("streams thinking with its signature and sends it back to the same model only", async () => {
		const model = gemini({ id: "gemini-2.5-flash", reasoning: true });
		server.enqueue({
			blocks: [
				{ type: "thinking", text: "Let me think", chunks: ["Let me ", "think"], signature: "sig-abc" },
				{ type: "text", text: "Answer" },
			],
		});
		const first = await run(model, ask("question"), { reasoning: "medium" });
		expect(first.events).toEqual([
			{ type: "start" },
			{ type: "thinking_start", contentIndex: 0 },
			{ type: "thinking_delta", contentIndex: 0, delta: "Let me " },
			{ type: "thinking_delta", contentIndex: 0, delta: "think" },
			{ type: "thinking_end", contentIndex: 0, content: "Let me think" },
			{ type: "text_start", contentIndex: 1 },
			{ type: "text_delta", contentIndex: 1, delta: "Answer" },
			{ type: "text_end", contentIndex: 1, content: "Answer" },
			{ type: "done", reason: "stop" },
		]);
		expect(first.message.content).toEqual([
			{ type: "thinking", thinking: "Let me think", thinkingSignature: "sig-abc" },
			{ type: "text", text: "Answer" },
		]);
		expect(requestBody().generationConfig).toEqual({
			maxOutputTokens: 8192,
			thinkingConfig: { includeThoughts: true, thinkingBudget: 8192 },
		});

		const followUp: Message[] = [
			{ role: "user", content: "question", timestamp: 1 },
			first.message,
			{ role: "user", content: "next", timestamp: 3 },
		];
		await run(model, { messages: followUp }, { reasoning: "medium" });
		expect((requestBody(1).contents as unknown[])[1]).toEqual({
			role: "model",
			parts: [{ thought: true, text: "Let me think", thoughtSignature: "sig-abc" }, { text: "Answer" }],
		});

		await run(gemini({ id: "gemini-2.5-pro", reasoning: true }), { messages: followUp });
		expect((requestBody(2).contents as unknown[])[1]).toEqual({
			role: "model",
			parts: [{ text: "Let me think" }, { text: "Answer" }],
		});
	});

	it("streams a tool call whole and declares the tools", async () => {
		const parameters = Type.Object({ path: Type.String() });
		server.enqueue({
			blocks: [{ type: "toolCall", id: "call_read", name: "read_file", arguments: { path: "src/a.ts" } }],
		});
		const tools = [{ name: "read_file", description: "Read a file", parameters }];
		const { events, message } = await run(gemini(), ask("read it", { tools }));
		const call = { type: "toolCall", id: "call_read", name: "read_file", arguments: { path: "src/a.ts" } };
		expect(events).toEqual([
			{ type: "start" },
			{ type: "toolcall_start", contentIndex: 0, id: "call_read", toolName: "read_file" },
			{ type: "toolcall_delta", contentIndex: 0, delta: '{"path":"src/a.ts"}' },
			{ type: "toolcall_end", contentIndex: 0, toolCall: call },
			{ type: "done", reason: "toolUse" },
		]);
		expect(message.content).toEqual([call]);
		expect(message.stopReason).toBe("toolUse");
		expect(requestBody().tools).toEqual([
			{
				functionDeclarations: [
					{
						name: "read_file",
						description: "Read a file",
						parametersJsonSchema: { type: "object", required: ["path"], properties: { path: { type: "string" } } },
					},
				],
			},
		]);
	});

	it("streams two tool calls of one reply as two blocks", async () => {
		server.enqueue({
			blocks: [
				{ type: "text", text: "Looking." },
				{ type: "toolCall", id: "c1", name: "ls", arguments: { dir: "." } },
				{ type: "toolCall", id: "c2", name: "ls", arguments: { dir: "src" } },
			],
		});
		const { message } = await run(gemini(), ask("list"));
		expect(message.content).toEqual([
			{ type: "text", text: "Looking." },
			{ type: "toolCall", id: "c1", name: "ls", arguments: { dir: "." } },
			{ type: "toolCall", id: "c2", name: "ls", arguments: { dir: "src" } },
		]);
		expect(message.stopReason).toBe("toolUse");
	});

	it("sends tool calls, tool results, errors and images as Gemini parts", async () => {
		const model = gemini();
		const messages: Message[] = [
			{
				role: "user",
				content: [
					{ type: "text", text: "look" },
					{ type: "image", mimeType: "image/png", data: TINY_PNG },
				],
				timestamp: 1,
			},
			assistant(
				model,
				[
					{ type: "toolCall", id: "c1", name: "read_file", arguments: { path: "a.ts" }, thoughtSignature: "ts-1" },
					{ type: "toolCall", id: "c2", name: "screenshot", arguments: {} },
				],
				"toolUse",
			),
			{
				role: "toolResult",
				toolCallId: "c1",
				toolName: "read_file",
				content: [{ type: "text", text: "no such file" }],
				isError: true,
				timestamp: 3,
			},
			{
				role: "toolResult",
				toolCallId: "c2",
				toolName: "screenshot",
				content: [
					{ type: "text", text: "captured" },
					{ type: "image", mimeType: "image/png", data: TINY_PNG },
				],
				isError: false,
				timestamp: 4,
			},
		];
		await run(model, { messages });
		const image = { inlineData: { mimeType: "image/png", data: TINY_PNG } };
		expect(requestBody().contents).toEqual([
			{ role: "user", parts: [{ text: "look" }, image] },
			{
				role: "model",
				parts: [
					{ functionCall: { id: "c1", name: "read_file", args: { path: "a.ts" } }, thoughtSignature: "ts-1" },
					{ functionCall: { id: "c2", name: "screenshot", args: {} } },
				],
			},
			{
				role: "user",
				parts: [
					{ functionResponse: { id: "c1", name: "read_file", response: { error: "no such file" } } },
					{ functionResponse: { id: "c2", name: "screenshot", response: { output: "captured" } } },
					image,
				],
			},
		]);
	});

	it("reports usage and cost with cached tokens and thoughts", async () => {
		server.enqueue({
			blocks: [
				{ type: "thinking", text: "t".repeat(40) },
				{ type: "text", text: "done" },
			],
			usage: { input: 1000, cacheRead: 4000, output: 500 },
		});
		const { message } = await run(gemini({ id: "gemini-2.5-flash", reasoning: true }), ask("hi"), { reasoning: "low" });
		// The wire reports 5000 prompt tokens (4000 cached), 490 candidate and 10 thought tokens.
		expect(message.usage).toMatchObject({
			input: 1000,
			cacheRead: 4000,
			output: 500,
			cacheWrite: 0,
			totalTokens: 5500,
		});
		expect(message.usage.cost.input).toBeCloseTo(0.003, 10);
		expect(message.usage.cost.cacheRead).toBeCloseTo(0.0012, 10);
		expect(message.usage.cost.output).toBeCloseTo(0.0075, 10);
		expect(message.usage.cost.total).toBeCloseTo(0.0117, 10);
	});

	it("maps MAX_TOKENS to length", async () => {
		server.enqueue(textReply("cut sho", { stopReason: "length" }));
		const { events, message } = await run(gemini(), ask("hi"));
		expect(events.at(-1)).toEqual({ type: "done", reason: "length" });
		expect(message.stopReason).toBe("length");
	});

	it("aborts mid-stream and closes the connection", async () => {
		server.enqueue({
			blocks: [{ type: "text", text: "one two three four", chunks: ["one ", "two ", "three ", "four"] }],
			delayMs: 50,
		});
		const controller = new AbortController();
		const stream = streamModel(gemini(), ask("hi"), { signal: controller.signal });
		const events: AssistantMessageEvent[] = [];
		for await (const event of stream) {
			events.push(event);
			if (event.type === "text_delta") controller.abort();
		}
		const last = events.at(-1);
		expect(last?.type === "error" && last.reason).toBe("aborted");
		const message = await stream.result();
		expect(message.stopReason).toBe("aborted");
		expect(message.content).toEqual([{ type: "text", text: "one " }]);
		await vi.waitFor(() => expect(server.requests[0]?.clientDisconnected).toBe(true));
	});

	it.each([
		[429, "Resource has been exhausted.", "RESOURCE_EXHAUSTED", "transient"],
		[500, "An internal error has occurred.", "INTERNAL", "transient"],
		[503, "The model is overloaded.", "UNAVAILABLE", "transient"],
		[401, "API key not valid.", "UNAUTHENTICATED", "permanent"],
		[403, "Permission denied.", "PERMISSION_DENIED", "permanent"],
	])("reports HTTP %i with the status first", async (status, text, statusName, kind) => {
		server.enqueue({ status, errorMessage: text });
		const { events, message } = await run(gemini(), ask("hi"), { apiKey: "secret-key" });
		expect(events).toEqual([{ type: "start" }, { type: "error", reason: "error" }]);
		expect(message.stopReason).toBe("error");
		expect(message.errorMessage).toBe(
			`${status} ${JSON.stringify({ error: { code: status, message: text, status: statusName } })}`,
		);
		expect(message.errorMessage).not.toContain("secret-key");
		expect(errorClass(message)).toBe(kind);
	});

	it("recognises the context-overflow error", async () => {
		const text = "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).";
		server.enqueue({ status: 400, errorMessage: text });
		const { message } = await run(gemini(), ask("hi"));
		expect(message.errorMessage?.startsWith("400 ")).toBe(true);
		expect(message.error?.kind).toBe("context_overflow");
		expect(errorClass(message)).toBe("context_overflow");
	});
});
