import { Type } from "typebox";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { streamModel } from "../../src/llm/registry.js";
import type { AssistantMessage, Context, ToolResultMessage } from "../../src/llm/types.js";
import { LlmServer } from "../support/llm-server.js";
import { TINY_PNG, testModel } from "../support/models.js";
import { bodyOf, userMessage } from "./anthropic-test-helpers.js";

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

function assistantWithCalls(calls: { id: string; name: string; arguments: Record<string, unknown> }[]) {
	const message: AssistantMessage = {
		role: "assistant",
		content: calls.map((call) => ({ type: "toolCall", ...call })),
		api: "anthropic-messages",
		provider: "test-anthropic-messages",
		model: "test-anthropic-messages",
		usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: emptyCost() },
		stopReason: "toolUse",
		timestamp: 2,
	};
	return message;
}

function emptyCost() {
	return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
}

function toolResult(toolCallId: string, content: ToolResultMessage["content"], isError = false): ToolResultMessage {
	return { role: "toolResult", toolCallId, toolName: "read", content, isError, timestamp: 3 };
}

describe("anthropic-messages request", () => {
	it("sends the model, max_tokens, the system prompt with a cache breakpoint, and the tools", async () => {
		const context: Context = {
			systemPrompt: "You are terse.",
			messages: [userMessage("Hi")],
			tools: [
				{
					name: "read",
					description: "Read a file",
					parameters: Type.Object({ path: Type.String({ description: "File path" }) }),
				},
			],
		};
		await streamModel(testModel(server, "anthropic-messages"), context).result();

		expect(bodyOf(server.requests[0])).toEqual({
			model: "test-anthropic-messages",
			max_tokens: 8192,
			stream: true,
			system: [{ type: "text", text: "You are terse.", cache_control: { type: "ephemeral" } }],
			messages: [{ role: "user", content: [{ type: "text", text: "Hi", cache_control: { type: "ephemeral" } }] }],
			tools: [
				{
					name: "read",
					description: "Read a file",
					input_schema: {
						type: "object",
						required: ["path"],
						properties: { path: { type: "string", description: "File path" } },
					},
				},
			],
		});
	});

	it("sends the api key as x-api-key, and model and call headers with the call's winning", async () => {
		const model = testModel(server, "anthropic-messages", { headers: { "x-model": "m", "x-shared": "model" } });
		await streamModel(
			model,
			{ messages: [userMessage("Hi")] },
			{
				apiKey: "sk-test-key",
				headers: { "x-call": "c", "x-shared": "call" },
			},
		).result();

		const headers = server.requests[0]?.headers ?? {};
		expect(headers["x-api-key"]).toBe("sk-test-key");
		expect(headers.authorization).toBeUndefined();
		expect(headers["x-model"]).toBe("m");
		expect(headers["x-call"]).toBe("c");
		expect(headers["x-shared"]).toBe("call");
	});

	it("sends each request's own key and headers when requests differ only in them", async () => {
		const model = testModel(server, "anthropic-messages");
		const calls = [
			{ apiKey: "key-a", headers: { "x-call": "one" } },
			{ apiKey: "key-b", headers: { "x-call": "one" } },
			{ apiKey: "key-a", headers: { "x-call": "two" } },
			{ apiKey: "key-a", headers: { "x-call": "one" } },
		];
		for (const options of calls) await streamModel(model, { messages: [userMessage("Hi")] }, options).result();
		expect(server.requests.map((request) => [request.headers["x-api-key"], request.headers["x-call"]])).toEqual(
			calls.map((call) => [call.apiKey, call.headers["x-call"]]),
		);
	});

	it("sends a placeholder key when none is configured", async () => {
		await streamModel(testModel(server, "anthropic-messages"), { messages: [userMessage("Hi")] }).result();
		expect(server.requests[0]?.headers["x-api-key"]).toBe("atomic-no-key");
	});

	it("sends user images as base64 sources with their media type", async () => {
		const context: Context = {
			messages: [
				userMessage([
					{ type: "text", text: "What is this?" },
					{ type: "image", data: TINY_PNG, mimeType: "image/png" },
				]),
			],
		};
		await streamModel(testModel(server, "anthropic-messages"), context).result();

		expect(bodyOf(server.requests[0]).messages).toEqual([
			{
				role: "user",
				content: [
					{ type: "text", text: "What is this?" },
					{
						type: "image",
						source: { type: "base64", media_type: "image/png", data: TINY_PNG },
						cache_control: { type: "ephemeral" },
					},
				],
			},
		]);
	});

	it("merges consecutive tool results into one user message of tool_result blocks", async () => {
		const context: Context = {
			messages: [
				userMessage("Read both"),
				assistantWithCalls([
					{ id: "toolu_a", name: "read", arguments: { path: "a.txt" } },
					{ id: "toolu_b", name: "read", arguments: { path: "b.png" } },
				]),
				toolResult("toolu_a", [{ type: "text", text: "alpha" }]),
				toolResult(
					"toolu_b",
					[
						{ type: "text", text: "an image" },
						{ type: "image", data: TINY_PNG, mimeType: "image/png" },
					],
					true,
				),
			],
		};
		await streamModel(testModel(server, "anthropic-messages"), context).result();

		const messages = bodyOf(server.requests[0]).messages;
		expect(messages).toEqual([
			{ role: "user", content: [{ type: "text", text: "Read both" }] },
			{
				role: "assistant",
				content: [
					{ type: "tool_use", id: "toolu_a", name: "read", input: { path: "a.txt" } },
					{ type: "tool_use", id: "toolu_b", name: "read", input: { path: "b.png" } },
				],
			},
			{
				role: "user",
				content: [
					{ type: "tool_result", tool_use_id: "toolu_a", content: [{ type: "text", text: "alpha" }], is_error: false },
					{
						type: "tool_result",
						tool_use_id: "toolu_b",
						content: [
							{ type: "text", text: "an image" },
							{ type: "image", source: { type: "base64", media_type: "image/png", data: TINY_PNG } },
						],
						is_error: true,
						cache_control: { type: "ephemeral" },
					},
				],
			},
		]);
	});

	it("rewrites tool-call ids Anthropic rejects, the same way for the call and its result", async () => {
		const foreignId = `call|${"x".repeat(75)}`;
		expect(foreignId).toHaveLength(80);
		const context: Context = {
			messages: [
				userMessage("Go"),
				assistantWithCalls([{ id: foreignId, name: "read", arguments: { path: "a" } }]),
				toolResult(foreignId, [{ type: "text", text: "done" }]),
			],
		};
		await streamModel(testModel(server, "anthropic-messages"), context).result();

		const expectedId = `call_${"x".repeat(59)}`;
		expect(expectedId).toMatch(/^[a-zA-Z0-9_-]{64}$/);
		const messages = bodyOf(server.requests[0]).messages as { content: Record<string, unknown>[] }[];
		expect(messages[1]?.content[0]?.id).toBe(expectedId);
		expect(messages[2]?.content[0]?.tool_use_id).toBe(expectedId);
	});

	it("sends the temperature only when thinking is off", async () => {
		const model = testModel(server, "anthropic-messages", { reasoning: true });
		await streamModel(model, { messages: [userMessage("Hi")] }, { temperature: 0.2 }).result();
		await streamModel(model, { messages: [userMessage("Hi")] }, { temperature: 0.2, reasoning: "low" }).result();

		expect(bodyOf(server.requests[0]).temperature).toBe(0.2);
		expect(bodyOf(server.requests[0]).thinking).toEqual({ type: "disabled" });
		expect(bodyOf(server.requests[1]).temperature).toBeUndefined();
		expect(bodyOf(server.requests[1]).thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
	});
});
