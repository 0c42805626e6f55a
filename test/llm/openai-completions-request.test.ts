import { describe, expect, it } from "vitest";
import { buildCompletionsRequest } from "../../src/llm/providers/openai-completions-request.js";
import type { Context, Model, ThinkingLevel } from "../../src/llm/types.js";
import { assistantWith, hello } from "./openai-test-helpers.js";

const API = "openai-completions";

describe("buildCompletionsRequest", () => {
	const base = testModelFor({ provider: "openai", reasoning: true });

	function testModelFor(overrides: Partial<Model>): Model {
		return {
			id: "gpt-test",
			name: "GPT test",
			api: API,
			provider: "openai",
			baseUrl: "http://127.0.0.1:1/v1",
			reasoning: false,
			input: ["text"],
			contextWindow: 128_000,
			maxTokens: 16_384,
			cost: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
			...overrides,
		};
	}

	function reasoningFields(model: Model, level: ThinkingLevel | undefined) {
		const request = buildCompletionsRequest(model, hello, level ? { reasoning: level } : {});
		return {
			reasoning_effort: request.reasoning_effort,
			reasoning: request.reasoning,
			enable_thinking: request.enable_thinking,
		};
	}

	it.each<[ThinkingLevel, string]>([
		["minimal", "minimal"],
		["low", "low"],
		["medium", "medium"],
		["high", "high"],
	])("sends reasoning_effort for %s", (level, effort) => {
		expect(reasoningFields(base, level)).toEqual({
			reasoning_effort: effort,
			reasoning: undefined,
			enable_thinking: undefined,
		});
	});

	it("uses the model's thinking level map", () => {
		const model = { ...base, thinkingLevelMap: { xhigh: "xhigh", minimal: "low" } };
		expect(reasoningFields(model, "xhigh").reasoning_effort).toBe("xhigh");
		expect(reasoningFields(model, "minimal").reasoning_effort).toBe("low");
	});

	it("sends no reasoning parameter at off, unless off is mapped", () => {
		expect(reasoningFields(base, "off")).toEqual({
			reasoning_effort: undefined,
			reasoning: undefined,
			enable_thinking: undefined,
		});
		expect(reasoningFields(base, undefined).reasoning_effort).toBeUndefined();
		expect(reasoningFields({ ...base, thinkingLevelMap: { off: "none" } }, "off").reasoning_effort).toBe("none");
	});

	it("sends nothing for a non-reasoning model", () => {
		const model = { ...base, reasoning: false };
		expect(reasoningFields(model, "high")).toEqual({
			reasoning_effort: undefined,
			reasoning: undefined,
			enable_thinking: undefined,
		});
	});

	it("honours supportsReasoningEffort false", () => {
		const model = { ...base, compat: { supportsReasoningEffort: false } };
		expect(reasoningFields(model, "high").reasoning_effort).toBeUndefined();
	});

	it("uses the openrouter, qwen and none thinking formats", () => {
		const openrouter = { ...base, provider: "openrouter", compat: { thinkingFormat: "openrouter" as const } };
		expect(reasoningFields(openrouter, "low")).toEqual({
			reasoning_effort: undefined,
			reasoning: { effort: "low" },
			enable_thinking: undefined,
		});
		expect(reasoningFields(openrouter, "off").reasoning).toBeUndefined();

		const qwen = { ...base, provider: "dashscope", compat: { thinkingFormat: "qwen" as const } };
		expect(reasoningFields(qwen, "medium")).toEqual({
			reasoning_effort: undefined,
			reasoning: undefined,
			enable_thinking: true,
		});
		expect(reasoningFields(qwen, "off").enable_thinking).toBe(false);

		const none = { ...base, compat: { thinkingFormat: "none" as const } };
		expect(reasoningFields(none, "high")).toEqual({
			reasoning_effort: undefined,
			reasoning: undefined,
			enable_thinking: undefined,
		});
	});

	it("chooses the max tokens field by provider and compat", () => {
		expect(buildCompletionsRequest(base, hello, { maxTokens: 100 }).max_completion_tokens).toBe(100);
		expect(buildCompletionsRequest(base, hello, { maxTokens: 100 }).max_tokens).toBeUndefined();

		const local = { ...base, provider: "ollama" };
		expect(buildCompletionsRequest(local, hello, { maxTokens: 100 }).max_tokens).toBe(100);
		expect(buildCompletionsRequest(local, hello, { maxTokens: 100 }).max_completion_tokens).toBeUndefined();

		const forced = { ...local, compat: { maxTokensField: "max_completion_tokens" as const } };
		expect(buildCompletionsRequest(forced, hello, { maxTokens: 100 }).max_completion_tokens).toBe(100);
		expect(buildCompletionsRequest(base, hello, {}).max_completion_tokens).toBeUndefined();
	});

	it("uses the developer role only for reasoning models that support it", () => {
		const context = { ...hello, systemPrompt: "Rules." };
		const roleFor = (model: Model) => buildCompletionsRequest(model, context, {}).messages[0]?.role;
		expect(roleFor(base)).toBe("developer");
		expect(roleFor({ ...base, reasoning: false })).toBe("system");
		expect(roleFor({ ...base, provider: "vllm" })).toBe("system");
		expect(roleFor({ ...base, provider: "vllm", compat: { supportsDeveloperRole: true } })).toBe("developer");
		expect(roleFor({ ...base, compat: { supportsDeveloperRole: false } })).toBe("system");
	});

	it("sends store false only where supported, and prompt_cache_key only to OpenAI", () => {
		expect(buildCompletionsRequest(base, hello, { sessionId: "s1" })).toMatchObject({
			store: false,
			prompt_cache_key: "s1",
		});
		const local = buildCompletionsRequest({ ...base, provider: "llama.cpp" }, hello, { sessionId: "s1" });
		expect(local.store).toBeUndefined();
		expect(local.prompt_cache_key).toBeUndefined();
		expect(buildCompletionsRequest({ ...base, provider: "x", compat: { supportsStore: true } }, hello, {}).store).toBe(
			false,
		);
	});

	it("drops thinking from history unless the server wants it as text, and names tool results on request", () => {
		const model = { ...base, compat: { requiresThinkingAsText: true, requiresToolResultName: true } };
		const context: Context = {
			messages: [
				hello.messages[0] as Context["messages"][number],
				assistantWith(
					[
						{ type: "thinking", thinking: "Hmm. " },
						{ type: "text", text: "Done." },
						{ type: "toolCall", id: "call_x|fc_y", name: "ls", arguments: {} },
					],
					model,
				),
				{
					role: "toolResult",
					toolCallId: "call_x|fc_y",
					toolName: "ls",
					content: [{ type: "text", text: "a" }],
					isError: false,
					timestamp: 3,
				},
			],
		};
		const withText = buildCompletionsRequest(model, context, {}).messages;
		expect(withText[1]).toEqual({
			role: "assistant",
			content: "Hmm. Done.",
			tool_calls: [{ id: "call_x", type: "function", function: { name: "ls", arguments: "{}" } }],
		});
		expect(withText[2]).toEqual({ role: "tool", tool_call_id: "call_x", content: "a", name: "ls" });

		const plain = buildCompletionsRequest({ ...model, compat: {} }, context, {}).messages;
		expect(plain[1]).toMatchObject({ role: "assistant", content: "Done." });
		expect(plain[2]).toEqual({ role: "tool", tool_call_id: "call_x", content: "a" });
	});
});
