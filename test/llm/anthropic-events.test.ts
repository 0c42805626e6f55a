import type { RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import { anthropicStreamErrorText, classifyAnthropicFailure } from "../../src/llm/providers/anthropic-errors.js";
import { AnthropicEventReader } from "../../src/llm/providers/anthropic-events.js";
import { AssistantStreamBuilder } from "../../src/llm/stream-builder.js";
import type { AssistantMessageEvent, Model } from "../../src/llm/types.js";

const model: Model = {
	id: "claude-test",
	name: "Claude Test",
	api: "anthropic-messages",
	provider: "anthropic",
	baseUrl: "http://127.0.0.1:9",
	reasoning: true,
	input: ["text"],
	contextWindow: 200_000,
	maxTokens: 8192,
	cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
};

/** Events as the API sends them; the SDK types demand fields these tests do not need. */
function raw(event: unknown): RawMessageStreamEvent {
	return event as RawMessageStreamEvent;
}

function setup() {
	const out = new AssistantStreamBuilder(model);
	const events: AssistantMessageEvent[] = [];
	const push = out.stream.push.bind(out.stream);
	out.stream.push = (event) => {
		events.push(event);
		push(event);
	};
	const reader = new AnthropicEventReader(out);
	const start = (usage: Record<string, number> = { input_tokens: 5, output_tokens: 1 }) =>
		reader.handle(raw({ type: "message_start", message: { usage } }));
	const stop = (stopReason: string, extra: Record<string, unknown> = {}) =>
		reader.handle(
			raw({ type: "message_delta", delta: { stop_reason: stopReason, ...extra }, usage: { output_tokens: 7 } }),
		);
	return { out, events, reader, start, stop };
}

describe("AnthropicEventReader", () => {
	it("takes updated input and cache counts from message_delta", () => {
		const { out, reader, start } = setup();
		start({ input_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 1 });
		reader.handle(
			raw({
				type: "message_delta",
				delta: { stop_reason: "end_turn" },
				usage: { input_tokens: 40, cache_read_input_tokens: 30, cache_creation_input_tokens: 20, output_tokens: 10 },
			}),
		);
		reader.finish();
		expect(out.message.usage).toMatchObject({ input: 40, output: 10, cacheRead: 30, cacheWrite: 20, totalTokens: 100 });
		expect(out.message.stopReason).toBe("stop");
	});

	it("keeps message_start counts when message_delta reports only output tokens", () => {
		const { out, reader, start, stop } = setup();
		start({ input_tokens: 12, cache_read_input_tokens: 3, cache_creation_input_tokens: 4, output_tokens: 1 });
		stop("end_turn");
		reader.finish();
		expect(out.message.usage).toMatchObject({ input: 12, output: 7, cacheRead: 3, cacheWrite: 4, totalTokens: 26 });
	});

	it("takes a tool call whose input arrives whole, and skips blocks it does not model", () => {
		const { out, events, reader, start, stop } = setup();
		start();
		reader.handle(
			raw({
				type: "content_block_start",
				index: 0,
				content_block: { type: "server_tool_use", id: "srv_1", name: "web_search", input: {} },
			}),
		);
		reader.handle(
			raw({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "{}" } }),
		);
		reader.handle(raw({ type: "content_block_stop", index: 0 }));
		reader.handle(
			raw({
				type: "content_block_start",
				index: 1,
				content_block: { type: "tool_use", id: "toolu_9", name: "ls", input: { path: "." } },
			}),
		);
		reader.handle(raw({ type: "content_block_stop", index: 1 }));
		stop("end_turn");
		reader.finish();

		expect(out.message.content).toEqual([{ type: "toolCall", id: "toolu_9", name: "ls", arguments: { path: "." } }]);
		expect(events.map((event) => event.type)).toEqual([
			"start",
			"toolcall_start",
			"toolcall_delta",
			"toolcall_end",
			"done",
		]);
		// end_turn with a tool call still hands the call to the agent.
		expect(out.message.stopReason).toBe("toolUse");
	});

	it.each([
		["stop_sequence", "stop"],
		["pause_turn", "stop"],
		["max_tokens", "length"],
		["model_context_window_exceeded", "length"],
		["tool_use", "toolUse"],
	])("maps stop reason %s to %s", (stopReason, expected) => {
		const { out, reader, start, stop } = setup();
		start();
		stop(stopReason);
		reader.finish();
		expect(out.message.stopReason).toBe(expected);
	});

	it("a refusal fails with a message naming it", () => {
		const { out, reader, start, stop } = setup();
		start();
		stop("refusal", { stop_details: { type: "refusal", category: "cyber", explanation: "Not allowed." } });
		expect(() => reader.finish()).toThrow(
			'The model refused to answer (stop_reason "refusal"): category cyber, Not allowed.',
		);
		expect(out.isFinished).toBe(false);
	});

	it("leaves the reply open when the stream ended without a stop reason", () => {
		const { out, reader, start } = setup();
		start();
		reader.finish();
		expect(out.isFinished).toBe(false);
	});
});

describe("anthropicStreamErrorText and classifyAnthropicFailure", () => {
	it.each([
		["overloaded_error", "Overloaded", "529 overloaded_error: Overloaded", "transient"],
		["rate_limit_error", "Slow down", "429 rate_limit_error: Slow down", "transient"],
		["api_error", "Internal", "500 api_error: Internal", "transient"],
		["authentication_error", "Bad key", "401 authentication_error: Bad key", "permanent"],
		[
			"invalid_request_error",
			"prompt is too long: 5 > 4",
			"400 invalid_request_error: prompt is too long: 5 > 4",
			"context_overflow",
		],
		["mystery_error", "Odd", "mystery_error: Odd", "permanent"],
	])("%s becomes a status-prefixed text and its kind", (type, message, text, kind) => {
		expect(anthropicStreamErrorText(type, message)).toBe(text);
		const error = classifyAnthropicFailure({ type, message });
		expect(error.kind === "context_overflow" ? "context_overflow" : error.retryable ? "transient" : "permanent").toBe(
			kind,
		);
	});

	it("copes with a missing type and message", () => {
		expect(anthropicStreamErrorText(null, null)).toBe("error: (no message)");
	});
});
