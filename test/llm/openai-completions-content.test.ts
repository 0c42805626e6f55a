/**
 * What OpenAI-compatible servers stream beside OpenAI's reference shape, as their documentation
 * shows it, through the loopback server into the official SDK: refusals, content as typed parts,
 * reasoning fields, usage in its several places, keep-alive chunks and comments.
 */
import { describe, expect, it } from "vitest";
import { streamModel } from "../../src/llm/registry.js";
import type { AssistantMessage } from "../../src/llm/types.js";
import { testModel } from "../support/models.js";
import { chunk, DONE, emptyChunk, usage } from "./completions-fixtures.js";
import { collect, hello, useLlmServer } from "./openai-test-helpers.js";

const ctx = useLlmServer();

async function replyTo(raw: string[]): Promise<AssistantMessage> {
	ctx.server.enqueue({ raw });
	return streamModel(testModel(ctx.server, "openai-completions", { reasoning: true }), hello).result();
}

describe("chat completions content shapes", () => {
	it("shows a refusal streamed in delta.refusal as the reply's text (OpenAI)", async () => {
		const message = await replyTo([
			chunk({ role: "assistant", content: null, refusal: "" }),
			chunk({ refusal: "I'm sorry, " }),
			chunk({ refusal: "I can't help with that." }),
			chunk({}, { finish: "stop" }),
			emptyChunk({ usage: usage(20, 9) }),
			DONE,
		]);
		expect(message.stopReason).toBe("stop");
		expect(message.content).toEqual([{ type: "text", text: "I'm sorry, I can't help with that." }]);
		expect(message.usage).toMatchObject({ input: 20, output: 9 });
	});

	it("maps Mistral's typed content parts: thinking parts to thinking, text parts to text (Magistral)", async () => {
		const thinking = (text: string) => ({ type: "thinking", thinking: [{ type: "text", text }] });
		const message = await replyTo([
			chunk({ role: "assistant", content: "" }),
			chunk({ content: [thinking("The user greets me. ")] }),
			chunk({ content: [thinking("Answer politely.")] }),
			chunk({ content: [{ type: "text", text: "Hello" }] }),
			chunk({ content: "! How can I help?" }),
			chunk({ content: "" }, { finish: "stop", extra: { usage: usage(12, 30) } }),
			DONE,
		]);
		expect(message.stopReason).toBe("stop");
		expect(message.content).toEqual([
			{ type: "thinking", thinking: "The user greets me. Answer politely." },
			{ type: "text", text: "Hello! How can I help?" },
		]);
		expect(message.usage).toMatchObject({ input: 12, output: 30 });
	});

	it("reads reasoning from `reasoning` (Ollama, OpenRouter) as from `reasoning_content` (DeepSeek, vLLM)", async () => {
		const fromReasoning = await replyTo([
			chunk({ role: "assistant", content: "", reasoning: "Thinking " }),
			chunk({ reasoning: "hard." }),
			chunk({ content: "Done." }),
			chunk({}, { finish: "stop" }),
			DONE,
		]);
		const fromReasoningContent = await replyTo([
			chunk({ role: "assistant", content: null, reasoning_content: "Thinking " }),
			chunk({ reasoning_content: "hard.", content: null }),
			chunk({ content: "Done.", reasoning_content: null }),
			chunk({}, { finish: "stop" }),
			DONE,
		]);
		expect(fromReasoning.content).toEqual([
			{ type: "thinking", thinking: "Thinking hard.", thinkingSignature: "reasoning" },
			{ type: "text", text: "Done." },
		]);
		expect(fromReasoningContent.content).toEqual([
			{ type: "thinking", thinking: "Thinking hard.", thinkingSignature: "reasoning_content" },
			{ type: "text", text: "Done." },
		]);
	});

	it("skips keep-alive chunks with empty choices and `:` comment lines (DeepSeek, OpenRouter, Azure)", async () => {
		const message = await replyTo([
			": keep-alive\n\n",
			": OPENROUTER PROCESSING\n\n",
			// Azure's first chunk: prompt filter results, no choices, no model.
			emptyChunk({ model: "", prompt_filter_results: [{ prompt_index: 0, content_filter_results: {} }] }),
			chunk({ role: "assistant", content: "" }),
			emptyChunk(),
			chunk({ content: "Hi" }),
			": keep-alive\n\n",
			// Azure's content filter annotation: a choice without a delta.
			`data: ${JSON.stringify({
				id: "chatcmpl-fixture",
				object: "chat.completion.chunk",
				created: 1,
				model: "gpt-4o",
				choices: [{ index: 0, finish_reason: null, content_filter_results: { hate: { filtered: false } } }],
			})}\n\n`,
			chunk({ content: " there" }),
			chunk({}, { finish: "stop" }),
			DONE,
		]);
		expect(message.stopReason).toBe("stop");
		expect(message.content).toEqual([{ type: "text", text: "Hi there" }]);
	});
});

describe("chat completions usage", () => {
	it("counts xAI's reasoning tokens, reported beside completion_tokens, once in the output", async () => {
		const xaiUsage = {
			prompt_tokens: 32,
			completion_tokens: 9,
			total_tokens: 135,
			prompt_tokens_details: { text_tokens: 32, audio_tokens: 0, image_tokens: 0, cached_tokens: 6 },
			completion_tokens_details: { reasoning_tokens: 94, audio_tokens: 0 },
		};
		const message = await replyTo([
			chunk({ role: "assistant", content: "Hi" }),
			chunk({}, { finish: "stop" }),
			emptyChunk({ usage: xaiUsage }),
			DONE,
		]);
		expect(message.usage).toMatchObject({ input: 26, cacheRead: 6, output: 103, totalTokens: 135 });
	});

	it("counts OpenAI's reasoning tokens, included in completion_tokens, once", async () => {
		const openaiUsage = {
			...usage(40, 300),
			prompt_tokens_details: { cached_tokens: 0 },
			completion_tokens_details: { reasoning_tokens: 256 },
		};
		const message = await replyTo([
			chunk({ role: "assistant", content: "Hi" }),
			chunk({}, { finish: "stop" }),
			emptyChunk({ usage: openaiUsage }),
			DONE,
		]);
		expect(message.usage).toMatchObject({ input: 40, output: 300, totalTokens: 340 });
	});

	it("reads usage sent only in the last chunk with the finish reason (vLLM, Mistral)", async () => {
		const message = await replyTo([
			chunk({ role: "assistant", content: "Hi" }),
			chunk({ content: "!" }, { finish: "stop", extra: { usage: usage(11, 2) } }),
			DONE,
		]);
		expect(message.usage).toMatchObject({ input: 11, output: 2, totalTokens: 13 });
	});

	it("reads Groq's usage from x_groq", async () => {
		const message = await replyTo([
			chunk({ role: "assistant", content: "Hi" }, { extra: { x_groq: { id: "req_01" } } }),
			chunk(
				{},
				{ finish: "stop", extra: { x_groq: { id: "req_01", usage: { ...usage(24, 377), queue_time: 0.02 } } } },
			),
			DONE,
		]);
		expect(message.usage).toMatchObject({ input: 24, output: 377 });
	});

	it("reads DeepSeek's prompt cache hits as cached input", async () => {
		const deepseekUsage = { ...usage(100, 10), prompt_cache_hit_tokens: 64, prompt_cache_miss_tokens: 36 };
		const message = await replyTo([
			chunk({ role: "assistant", content: "Hi" }),
			chunk({}, { finish: "stop", extra: { usage: deepseekUsage } }),
			DONE,
		]);
		expect(message.usage).toMatchObject({ input: 36, cacheRead: 64, output: 10 });
	});

	it("ends normally with zero usage when the server reports none", async () => {
		const events = await collect(
			(() => {
				ctx.server.enqueue({ raw: [chunk({ role: "assistant", content: "Hi" }), chunk({}, { finish: "stop" }), DONE] });
				return streamModel(testModel(ctx.server, "openai-completions"), hello);
			})(),
		);
		const done = events.at(-1);
		if (done?.type !== "done") throw new Error("expected done");
		expect(done.message.stopReason).toBe("stop");
		expect(done.message.usage.totalTokens).toBe(0);
	});
});
