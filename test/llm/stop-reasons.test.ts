/**
 * Stops and blocks of the other APIs, as their documentation shows the stream: Anthropic's
 * redacted_thinking (kept and sent back verbatim) and max_tokens, the Responses API's
 * response.incomplete, Gemini's MAX_TOKENS, SAFETY and RECITATION finishes.
 */
import { describe, expect, it } from "vitest";
import { streamModel } from "../../src/llm/registry.js";
import type { AssistantMessage, Context, Message, Model, ToolResultMessage } from "../../src/llm/types.js";
import { testModel } from "../support/models.js";
import { sse } from "../support/wire/index.js";
import { errorClass } from "./error-helpers.js";
import { requestBody, useLlmServer } from "./openai-test-helpers.js";

const ctx = useLlmServer();
const ask: Message = { role: "user", content: "What's the weather in Paris?", timestamp: 1 };

async function reply(model: Model, raw: string[], context: Context = { messages: [ask] }): Promise<AssistantMessage> {
	ctx.server.enqueue({ raw });
	return streamModel(model, context, { reasoning: "high" }).result();
}

describe("anthropic-messages", () => {
	const claude = () => testModel(ctx.server, "anthropic-messages", { reasoning: true });
	const event = (data: Record<string, unknown> & { type: string }) => sse(data, data.type);
	const start = event({
		type: "message_start",
		message: {
			id: "msg_01",
			type: "message",
			role: "assistant",
			model: "claude-test",
			content: [],
			stop_reason: null,
			stop_sequence: null,
			usage: { input_tokens: 25, output_tokens: 1 },
		},
	});
	const stop = (reason: string, outputTokens: number) => [
		event({
			type: "message_delta",
			delta: { stop_reason: reason, stop_sequence: null },
			usage: { output_tokens: outputTokens },
		}),
		event({ type: "message_stop" }),
	];

	it("keeps a redacted_thinking block and sends it back verbatim, in order, during the tool loop", async () => {
		const model = claude();
		const first = await reply(model, [
			start,
			event({
				type: "content_block_start",
				index: 0,
				content_block: { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix" },
			}),
			event({ type: "content_block_stop", index: 0 }),
			event({
				type: "content_block_start",
				index: 1,
				content_block: { type: "thinking", thinking: "", signature: "" },
			}),
			event({ type: "content_block_delta", index: 1, delta: { type: "thinking_delta", thinking: "Use the tool." } }),
			event({ type: "content_block_delta", index: 1, delta: { type: "signature_delta", signature: "EqQBCgIYAhIM" } }),
			event({ type: "content_block_stop", index: 1 }),
			event({
				type: "content_block_start",
				index: 2,
				content_block: { type: "tool_use", id: "toolu_01", name: "get_weather", input: {} },
			}),
			event({
				type: "content_block_delta",
				index: 2,
				delta: { type: "input_json_delta", partial_json: '{"city": "Paris"}' },
			}),
			event({ type: "content_block_stop", index: 2 }),
			...stop("tool_use", 89),
		]);
		expect(first.stopReason).toBe("toolUse");
		expect(first.content).toEqual([
			{ type: "thinking", thinking: "", thinkingSignature: "EmwKAhgBEgy3va3pzix", redacted: true },
			{ type: "thinking", thinking: "Use the tool.", thinkingSignature: "EqQBCgIYAhIM" },
			{ type: "toolCall", id: "toolu_01", name: "get_weather", arguments: { city: "Paris" } },
		]);
		expect(first.usage).toMatchObject({ input: 25, output: 89 });

		const result: ToolResultMessage = {
			role: "toolResult",
			toolCallId: "toolu_01",
			toolName: "get_weather",
			content: [{ type: "text", text: "Sunny, 21°C" }],
			isError: false,
			timestamp: 3,
		};
		await reply(model, [start, ...stop("end_turn", 3)], { messages: [ask, first, result] });
		const messages = requestBody(ctx.server, 1).messages as { role: string; content: unknown[] }[];
		expect(messages[1]).toEqual({
			role: "assistant",
			content: [
				{ type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix" },
				{ type: "thinking", thinking: "Use the tool.", signature: "EqQBCgIYAhIM" },
				{ type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Paris" } },
			],
		});
	});

	it("takes message_stop without a stop reason (some compatible servers) as the end of a complete reply", async () => {
		const message = await reply(claude(), [
			start,
			event({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
			event({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Sunny." } }),
			event({ type: "content_block_stop", index: 0 }),
			event({ type: "message_stop" }),
		]);
		expect(message.stopReason).toBe("stop");
		expect(message.content).toEqual([{ type: "text", text: "Sunny." }]);
	});

	it("ends a max_tokens stop as length, with the text so far", async () => {
		const message = await reply(claude(), [
			start,
			event({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
			event({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "It is sunny and" } }),
			event({ type: "content_block_stop", index: 0 }),
			...stop("max_tokens", 16),
		]);
		expect(message.stopReason).toBe("length");
		expect(message.content).toEqual([{ type: "text", text: "It is sunny and" }]);
		expect(errorClass(message)).toBe("none");
	});
});

describe("openai-responses", () => {
	const gpt = () => testModel(ctx.server, "openai-responses", { reasoning: true });
	let sequence = 0;
	const event = (data: Record<string, unknown> & { type: string }) =>
		sse({ ...data, sequence_number: sequence++ }, data.type);
	const response = (status: string, extra: Record<string, unknown> = {}) => ({
		id: "resp_01",
		object: "response",
		created_at: 1_760_000_000,
		model: "gpt-test",
		status,
		output: [],
		error: null,
		incomplete_details: null,
		usage: null,
		...extra,
	});
	const message = { id: "msg_01", type: "message", role: "assistant", status: "in_progress", content: [] };
	const textPart = { type: "output_text", text: "", annotations: [] };
	const opening = () => [
		event({ type: "response.created", response: response("in_progress") }),
		event({ type: "response.output_item.added", output_index: 0, item: message }),
		event({
			type: "response.content_part.added",
			item_id: "msg_01",
			output_index: 0,
			content_index: 0,
			part: textPart,
		}),
		event({
			type: "response.output_text.delta",
			item_id: "msg_01",
			output_index: 0,
			content_index: 0,
			delta: "It is sunny and",
		}),
	];
	const usage = {
		input_tokens: 10,
		input_tokens_details: { cached_tokens: 0 },
		output_tokens: 16,
		output_tokens_details: { reasoning_tokens: 0 },
		total_tokens: 26,
	};

	it("ends response.incomplete (max_output_tokens) as length, with the text and usage so far", async () => {
		const result = await reply(gpt(), [
			...opening(),
			event({
				type: "response.incomplete",
				response: response("incomplete", { incomplete_details: { reason: "max_output_tokens" }, usage }),
			}),
		]);
		expect(result.stopReason).toBe("length");
		expect(result.content).toEqual([{ type: "text", text: "It is sunny and" }]);
		expect(result.usage).toMatchObject({ input: 10, output: 16 });
	});

	it("ends response.incomplete (content_filter) as an error that is not retried", async () => {
		const result = await reply(gpt(), [
			...opening(),
			event({
				type: "response.incomplete",
				response: response("incomplete", { incomplete_details: { reason: "content_filter" }, usage }),
			}),
		]);
		expect(result.stopReason).toBe("error");
		expect(result.error).toEqual({ kind: "content_filter", retryable: false, code: "content_filter" });
		expect(result.content).toEqual([{ type: "text", text: "It is sunny and" }]);
	});
});

describe("google-generative-ai", () => {
	const gemini = () => testModel(ctx.server, "google-generative-ai", { reasoning: true });
	const frame = (candidate: Record<string, unknown>, usageMetadata?: Record<string, unknown>) =>
		`data: ${JSON.stringify({ candidates: [{ index: 0, ...candidate }], ...(usageMetadata ? { usageMetadata } : {}), modelVersion: "gemini-test", responseId: "r1" })}\r\n\r\n`;
	const text = (value: string) => ({ content: { parts: [{ text: value }], role: "model" } });
	const usage = { promptTokenCount: 8, candidatesTokenCount: 12, thoughtsTokenCount: 30, totalTokenCount: 50 };

	it("ends MAX_TOKENS as length, counting thought tokens as output", async () => {
		const message = await reply(gemini(), [
			frame({ content: { parts: [{ text: "Weighing sources.", thought: true }], role: "model" } }),
			frame(text("It is sunny and")),
			frame({ ...text(""), finishReason: "MAX_TOKENS" }, usage),
		]);
		expect(message.stopReason).toBe("length");
		expect(message.content).toEqual([
			{ type: "thinking", thinking: "Weighing sources." },
			{ type: "text", text: "It is sunny and" },
		]);
		expect(message.usage).toMatchObject({ input: 8, output: 42 });
	});

	it("ends SAFETY as an error that keeps the text and is not retried", async () => {
		const message = await reply(gemini(), [
			frame(text("Here is how")),
			frame(
				{
					content: { parts: [{ text: "" }], role: "model" },
					finishReason: "SAFETY",
					safetyRatings: [{ category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "HIGH", blocked: true }],
				},
				usage,
			),
		]);
		expect(message.stopReason).toBe("error");
		expect(message.errorMessage).toBe("Gemini stopped the reply with finish reason SAFETY");
		expect(message.content).toEqual([{ type: "text", text: "Here is how" }]);
		expect(message.error).toEqual({ kind: "content_filter", retryable: false, code: "SAFETY" });
	});

	it("ends RECITATION as an error that is not retried", async () => {
		const message = await reply(gemini(), [
			frame(text("Four score and")),
			frame(
				{
					finishReason: "RECITATION",
					citationMetadata: { citationSources: [{ startIndex: 0, endIndex: 14, uri: "https://example.com/speech" }] },
				},
				usage,
			),
		]);
		expect(message.stopReason).toBe("error");
		expect(message.error).toEqual({ kind: "content_filter", retryable: false, code: "RECITATION" });
	});

	it("ends a stream cut mid-reply (no finish reason, connection reset) as a retryable network error", async () => {
		ctx.server.enqueue({
			raw: [frame(text("It is")), frame(text(" sunny")), frame({ ...text(""), finishReason: "STOP" }, usage)],
			fault: "reset",
			faultAfterFrames: 2,
		});
		const message = await streamModel(gemini(), { messages: [ask] }).result();
		expect(message.stopReason).toBe("error");
		expect(message.error).toMatchObject({ kind: "network", retryable: true });
	});

	it("reads a 429's RetryInfo delay, and a per-day quota as a spent quota", async () => {
		const retryInfo = { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "26s" };
		const quota = (quotaId: string) => ({
			"@type": "type.googleapis.com/google.rpc.QuotaFailure",
			violations: [{ quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests", quotaId }],
		});
		const body = (quotaId: string) => ({
			error: {
				code: 429,
				message: "You exceeded your current quota.",
				status: "RESOURCE_EXHAUSTED",
				details: [quota(quotaId), retryInfo],
			},
		});
		ctx.server.enqueue({ status: 429, errorBody: body("GenerateRequestsPerMinutePerProjectPerModel-FreeTier") });
		const perMinute = await streamModel(gemini(), { messages: [ask] }).result();
		expect(perMinute.error).toEqual({
			kind: "rate_limit",
			retryable: true,
			status: 429,
			code: "RESOURCE_EXHAUSTED",
			retryAfterMs: 26_000,
		});
		ctx.server.enqueue({ status: 429, errorBody: body("GenerateRequestsPerDayPerProjectPerModel-FreeTier") });
		const perDay = await streamModel(gemini(), { messages: [ask] }).result();
		expect(perDay.error).toMatchObject({ kind: "quota", retryable: false });
	});
});
