import { describe, expect, it } from "vitest";
import { buildAnthropicRequest } from "../../src/llm/providers/anthropic-request.js";
import type { Model, StreamOptions, ThinkingLevel } from "../../src/llm/types.js";
import { userMessage } from "./anthropic-test-helpers.js";

function model(overrides: Partial<Model> = {}): Model {
	return {
		id: "claude-test",
		name: "Claude Test",
		api: "anthropic-messages",
		provider: "anthropic",
		baseUrl: "http://127.0.0.1:9",
		reasoning: true,
		input: ["text", "image"],
		contextWindow: 200_000,
		maxTokens: 64_000,
		cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
		...overrides,
	};
}

function build(target: Model, options: StreamOptions) {
	const request = buildAnthropicRequest(target, { messages: [userMessage("Hi")] }, options);
	return {
		max_tokens: request.max_tokens,
		thinking: request.thinking,
		output_config: request.output_config,
		temperature: request.temperature,
	};
}

describe("buildAnthropicRequest thinking", () => {
	it.each<[ThinkingLevel, number]>([
		["minimal", 1024],
		["low", 2048],
		["medium", 8192],
		["high", 16384],
		["xhigh", 16384],
		["max", 16384],
	])("budget for %s is %i, with max_tokens at the model's limit", (level, budget) => {
		expect(build(model(), { reasoning: level })).toEqual({
			max_tokens: 64_000,
			thinking: { type: "enabled", budget_tokens: budget },
			output_config: undefined,
			temperature: undefined,
		});
	});

	it("honours budget overrides", () => {
		expect(build(model(), { reasoning: "medium", thinkingBudgets: { medium: 5000 } }).thinking).toEqual({
			type: "enabled",
			budget_tokens: 5000,
		});
	});

	it("raises a caller cap by the budget", () => {
		expect(build(model(), { reasoning: "medium", maxTokens: 4000 })).toMatchObject({
			max_tokens: 12_192,
			thinking: { type: "enabled", budget_tokens: 8192 },
		});
	});

	it("never raises max_tokens above the model's limit", () => {
		expect(build(model(), { reasoning: "high", maxTokens: 60_000 })).toMatchObject({
			max_tokens: 64_000,
			thinking: { type: "enabled", budget_tokens: 16_384 },
		});
	});

	it("shrinks the budget so that 1024 answer tokens remain", () => {
		expect(build(model({ maxTokens: 8192 }), { reasoning: "high" })).toMatchObject({
			max_tokens: 8192,
			thinking: { type: "enabled", budget_tokens: 7168 },
		});
		expect(build(model(), { reasoning: "high", maxTokens: 100 })).toMatchObject({
			max_tokens: 16_484,
			thinking: { type: "enabled", budget_tokens: 15_460 },
		});
	});

	it("turns thinking off when not even the smallest budget fits", () => {
		expect(build(model({ maxTokens: 1500 }), { reasoning: "low" })).toMatchObject({
			max_tokens: 1500,
			thinking: { type: "disabled" },
		});
	});

	it("sends thinking disabled for a reasoning model at off or without a level", () => {
		expect(build(model(), { reasoning: "off" })).toEqual({
			max_tokens: 64_000,
			thinking: { type: "disabled" },
			output_config: undefined,
			temperature: undefined,
		});
		expect(build(model(), {}).thinking).toEqual({ type: "disabled" });
	});

	it("sends no thinking parameter when the model marks off unsupported", () => {
		expect(build(model({ thinkingLevelMap: { off: null } }), { reasoning: "off" }).thinking).toBeUndefined();
	});

	it("sends no thinking parameter for a non-reasoning model, whatever the level", () => {
		const request = buildAnthropicRequest(
			model({ reasoning: false }),
			{ messages: [userMessage("Hi")] },
			{
				reasoning: "high",
				maxTokens: 1000,
			},
		);
		expect("thinking" in request).toBe(false);
		expect("output_config" in request).toBe(false);
		expect(request.max_tokens).toBe(1000);
	});

	it("keeps a caller cap that exceeds the model's limit at the limit", () => {
		expect(build(model({ reasoning: false }), { maxTokens: 100_000 }).max_tokens).toBe(64_000);
	});

	it.each<[ThinkingLevel, string]>([
		["minimal", "low"],
		["low", "low"],
		["medium", "medium"],
		["high", "high"],
		["xhigh", "high"],
		["max", "high"],
	])("adaptive thinking maps %s to effort %s", (level, effort) => {
		expect(build(model({ compat: { forceAdaptiveThinking: true } }), { reasoning: level })).toEqual({
			max_tokens: 64_000,
			thinking: { type: "adaptive", display: "summarized" },
			output_config: { effort },
			temperature: undefined,
		});
	});

	it("adaptive thinking uses the model's mapped effort for xhigh and max", () => {
		const adaptive = model({
			compat: { forceAdaptiveThinking: true },
			thinkingLevelMap: { xhigh: "xhigh", max: "max" },
		});
		expect(build(adaptive, { reasoning: "xhigh" }).output_config).toEqual({ effort: "xhigh" });
		expect(build(adaptive, { reasoning: "max" }).output_config).toEqual({ effort: "max" });
	});

	it("adaptive thinking ignores a mapped value the API does not know", () => {
		const adaptive = model({ compat: { forceAdaptiveThinking: true }, thinkingLevelMap: { max: "turbo" } });
		expect(build(adaptive, { reasoning: "max" }).output_config).toEqual({ effort: "high" });
	});

	it("an adaptive model at off gets thinking disabled and no effort", () => {
		expect(build(model({ compat: { forceAdaptiveThinking: true } }), { reasoning: "off" })).toEqual({
			max_tokens: 64_000,
			thinking: { type: "disabled" },
			output_config: undefined,
			temperature: undefined,
		});
	});

	it("sends the temperature only without thinking", () => {
		expect(build(model(), { temperature: 0.5 }).temperature).toBe(0.5);
		expect(build(model(), { temperature: 0.5, reasoning: "low" }).temperature).toBeUndefined();
		expect(
			build(model({ compat: { forceAdaptiveThinking: true } }), { temperature: 0.5, reasoning: "low" }).temperature,
		).toBeUndefined();
	});
});

describe("buildAnthropicRequest messages", () => {
	it("drops empty text, keeps unsigned thinking as text, and skips a blank system prompt", () => {
		const request = buildAnthropicRequest(
			model(),
			{
				systemPrompt: "  ",
				messages: [
					userMessage([
						{ type: "text", text: "" },
						{ type: "text", text: "Question" },
					]),
					{
						role: "assistant",
						content: [
							{ type: "thinking", thinking: "unsigned idea" },
							{ type: "text", text: "" },
							{ type: "text", text: "Reply" },
						],
						api: "anthropic-messages",
						provider: "anthropic",
						model: "claude-test",
						usage: {
							input: 0,
							output: 0,
							cacheRead: 0,
							cacheWrite: 0,
							totalTokens: 0,
							cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
						},
						stopReason: "stop",
						timestamp: 2,
					},
					userMessage("Follow-up"),
				],
			},
			{},
		);
		expect(request.system).toBeUndefined();
		expect(request.messages).toEqual([
			{ role: "user", content: [{ type: "text", text: "Question" }] },
			{
				role: "assistant",
				content: [
					{ type: "text", text: "unsigned idea" },
					{ type: "text", text: "Reply" },
				],
			},
			{ role: "user", content: [{ type: "text", text: "Follow-up", cache_control: { type: "ephemeral" } }] },
		]);
	});
});
