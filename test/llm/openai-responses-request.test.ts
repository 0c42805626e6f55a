import { describe, expect, it } from "vitest";
import { buildResponsesRequest } from "../../src/llm/providers/openai-responses-request.js";
import type { Model, ThinkingLevel } from "../../src/llm/types.js";
import { hello } from "./openai-test-helpers.js";

const API = "openai-responses";

describe("buildResponsesRequest", () => {
	const openai: Model = {
		id: "gpt-test",
		name: "GPT test",
		api: API,
		provider: "openai",
		baseUrl: "http://127.0.0.1:1/v1",
		reasoning: true,
		input: ["text", "image"],
		contextWindow: 400_000,
		maxTokens: 128_000,
		cost: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
	};

	function reasoningFields(model: Model, level: ThinkingLevel | undefined) {
		const request = buildResponsesRequest(model, hello, level ? { reasoning: level } : {});
		return { reasoning: request.reasoning, include: request.include };
	}

	it.each<ThinkingLevel>(["minimal", "low", "medium", "high"])("asks for %s effort with summaries", (level) => {
		expect(reasoningFields(openai, level)).toEqual({
			reasoning: { effort: level, summary: "auto" },
			include: ["reasoning.encrypted_content"],
		});
	});

	it("uses the model's thinking level map", () => {
		const model = { ...openai, thinkingLevelMap: { xhigh: "xhigh", minimal: "low" } };
		expect(reasoningFields(model, "xhigh").reasoning).toEqual({ effort: "xhigh", summary: "auto" });
		expect(reasoningFields(model, "minimal").reasoning).toEqual({ effort: "low", summary: "auto" });
	});

	it("turns reasoning off explicitly for OpenAI reasoning models only", () => {
		expect(reasoningFields(openai, "off")).toEqual({ reasoning: { effort: "none" }, include: undefined });
		expect(reasoningFields(openai, undefined).reasoning).toEqual({ effort: "none" });
		expect(reasoningFields({ ...openai, thinkingLevelMap: { off: "minimal" } }, "off").reasoning).toEqual({
			effort: "minimal",
		});
		expect(reasoningFields({ ...openai, provider: "openrouter" }, "off")).toEqual({
			reasoning: undefined,
			include: undefined,
		});
		expect(reasoningFields({ ...openai, provider: "openrouter" }, "low").reasoning).toEqual({
			effort: "low",
			summary: "auto",
		});
	});

	it("sends no reasoning for a non-reasoning model", () => {
		expect(reasoningFields({ ...openai, reasoning: false }, "high")).toEqual({
			reasoning: undefined,
			include: undefined,
		});
	});

	it("sends max_output_tokens, temperature and prompt_cache_key only when given", () => {
		const bare = buildResponsesRequest(openai, hello, {});
		expect(bare.max_output_tokens).toBeUndefined();
		expect(bare.temperature).toBeUndefined();
		expect(bare.prompt_cache_key).toBeUndefined();
		const full = buildResponsesRequest(openai, hello, { maxTokens: 300, temperature: 0.2, sessionId: "session-1" });
		expect(full).toMatchObject({ max_output_tokens: 300, temperature: 0.2, prompt_cache_key: "session-1" });
		expect(
			buildResponsesRequest({ ...openai, provider: "azure" }, hello, { sessionId: "s" }).prompt_cache_key,
		).toBeUndefined();
	});

	it("puts the system prompt in instructions, never in the input", () => {
		const request = buildResponsesRequest(openai, { ...hello, systemPrompt: "Rules." }, {});
		expect(request.instructions).toBe("Rules.");
		expect(request.input).toEqual([{ role: "user", content: [{ type: "input_text", text: "Hi" }] }]);
		expect(buildResponsesRequest(openai, hello, {}).instructions).toBeUndefined();
	});
});
