import { ApiError, type BlockedReason, type FinishReason, type Part } from "@google/genai";
import { describe, expect, it } from "vitest";
import { normalizeError } from "../../src/llm/providers/google-errors.js";
import { buildGoogleRequest } from "../../src/llm/providers/google-request.js";
import { type GoogleChunk, GoogleStreamReader } from "../../src/llm/providers/google-stream.js";
import { AssistantStreamBuilder } from "../../src/llm/stream-builder.js";
import type { Context, Model, StreamOptions, ThinkingLevel } from "../../src/llm/types.js";

/** The pure parts of the google-generative-ai provider; the SDK path is in google-generative-ai.test.ts. */

function gemini(overrides: Partial<Model> = {}): Model {
	return {
		id: "gemini-test",
		name: "Gemini test",
		api: "google-generative-ai",
		provider: "google",
		baseUrl: "http://127.0.0.1:9",
		reasoning: false,
		input: ["text", "image"],
		contextWindow: 1_000_000,
		maxTokens: 8192,
		cost: { input: 1, output: 1, cacheRead: 1, cacheWrite: 1 },
		...overrides,
	};
}

function ask(text: string): Context {
	return { messages: [{ role: "user", content: text, timestamp: 1 }] };
}

describe("buildGoogleRequest thinking config", () => {
	const levels: ThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];
	const config = (model: Model, reasoning: ThinkingLevel, extra: StreamOptions = {}) =>
		buildGoogleRequest(model, ask("hi"), { reasoning, ...extra }).config.thinkingConfig;
	const budgets = (id: string) => levels.map((level) => config(gemini({ id, reasoning: true }), level)?.thinkingBudget);
	const thinkingLevels = (id: string) =>
		levels.map((level) => config(gemini({ id, reasoning: true }), level)?.thinkingLevel);

	it("uses Gemini 2.5 budgets; off is 0 except on 2.5 Pro", () => {
		expect(budgets("gemini-2.5-pro")).toEqual([128, 128, 2048, 8192, 32768, 32768, 32768]);
		expect(budgets("gemini-2.5-flash")).toEqual([0, 128, 2048, 8192, 24576, 24576, 24576]);
		expect(budgets("gemini-2.5-flash-lite")).toEqual([0, 512, 2048, 8192, 24576, 24576, 24576]);
		expect(budgets("gemini-2.0-flash-thinking")).toEqual([0, 1024, 2048, 8192, 16384, 16384, 16384]);
	});

	it("includes thoughts only when thinking is on", () => {
		const model = gemini({ id: "gemini-2.5-flash", reasoning: true });
		expect(config(model, "off")).toEqual({ thinkingBudget: 0 });
		expect(config(model, "high")).toEqual({ includeThoughts: true, thinkingBudget: 24576 });
		expect(config(gemini({ id: "gemini-3-pro-preview", reasoning: true }), "off")).toEqual({ thinkingLevel: "LOW" });
		expect(config(gemini({ id: "gemini-3-pro-preview", reasoning: true }), "medium")).toEqual({
			includeThoughts: true,
			thinkingLevel: "HIGH",
		});
	});

	it("honours caller budgets", () => {
		const overrides = { thinkingBudgets: { medium: 5000 } };
		expect(config(gemini({ id: "gemini-2.5-flash", reasoning: true }), "medium", overrides)?.thinkingBudget).toBe(5000);
		expect(config(gemini({ id: "custom-thinker", reasoning: true }), "medium", overrides)?.thinkingBudget).toBe(5000);
	});

	it("uses thinking levels on Gemini 3", () => {
		expect(thinkingLevels("gemini-3-pro-preview")).toEqual(["LOW", "LOW", "LOW", "HIGH", "HIGH", "HIGH", "HIGH"]);
		expect(thinkingLevels("gemini-3-flash-preview")).toEqual([
			"MINIMAL",
			"MINIMAL",
			"LOW",
			"MEDIUM",
			"HIGH",
			"HIGH",
			"HIGH",
		]);
	});

	it("uses thinking levels on later generations too, including a mapped XHIGH", () => {
		expect(thinkingLevels("gemini-4-argon")).toEqual(["MINIMAL", "MINIMAL", "LOW", "MEDIUM", "HIGH", "HIGH", "HIGH"]);
		const neon = gemini({ id: "gemini-4-neon", reasoning: true, thinkingLevelMap: { xhigh: "XHIGH" } });
		expect(config(neon, "xhigh")).toEqual({ includeThoughts: true, thinkingLevel: "XHIGH" });
		expect(config(gemini({ id: "gemini-2.5-flash", reasoning: true }), "low")).toEqual({
			includeThoughts: true,
			thinkingBudget: 2048,
		});
	});

	it("sends no thinking config to models that do not reason", () => {
		expect(config(gemini({ id: "gemini-2.5-flash", reasoning: false }), "high")).toBeUndefined();
	});
});

describe("GoogleStreamReader", () => {
	const chunk = (parts: Part[], finishReason?: string, finishMessage?: string): GoogleChunk => ({
		candidates: [{ content: { role: "model", parts }, finishReason: finishReason as FinishReason, finishMessage }],
	});

	it("keeps signatures on text and calls and names calls that came without an id", () => {
		const out = new AssistantStreamBuilder(gemini({ id: "gemini-3-flash" }));
		const reader = new GoogleStreamReader(out);
		reader.read(chunk([{ text: "Let me check" }]));
		reader.read(chunk([{ text: ".", thoughtSignature: "sig-text" }]));
		reader.read(chunk([{ functionCall: { name: "ls", args: { dir: "." } }, thoughtSignature: "sig-call" }]));
		reader.read(chunk([{ text: "" }], "STOP"));
		reader.finish();
		const [text, call] = out.message.content;
		expect(text).toEqual({ type: "text", text: "Let me check.", textSignature: "sig-text" });
		expect(call).toMatchObject({ type: "toolCall", name: "ls", arguments: { dir: "." }, thoughtSignature: "sig-call" });
		expect(call?.type === "toolCall" && call.id).toMatch(/^ls_\d+_[a-z0-9]{4}$/);
		expect(out.message.stopReason).toBe("toolUse");
	});

	it("ends the reply as an error for a safety stop", () => {
		const reader = new GoogleStreamReader(new AssistantStreamBuilder(gemini()));
		reader.read(chunk([{ text: "I" }], "SAFETY", "Blocked for safety."));
		expect(() => reader.finish()).toThrow("Gemini stopped the reply with finish reason SAFETY: Blocked for safety.");
	});

	it("fails on a blocked prompt", () => {
		const reader = new GoogleStreamReader(new AssistantStreamBuilder(gemini()));
		const blocked = { promptFeedback: { blockReason: "PROHIBITED_CONTENT" as BlockedReason } };
		expect(() => reader.read(blocked)).toThrow("Gemini blocked the prompt (PROHIBITED_CONTENT)");
	});
});

describe("buildGoogleRequest contents", () => {
	it("honours a thinking level the model maps to a Gemini level", () => {
		const model = gemini({ id: "gemini-3-flash-preview", reasoning: true, thinkingLevelMap: { medium: "high" } });
		expect(buildGoogleRequest(model, ask("hi"), { reasoning: "medium" }).config.thinkingConfig).toEqual({
			includeThoughts: true,
			thinkingLevel: "HIGH",
		});
	});

	it("sends back a text signature of the same model and an image-only tool result", () => {
		const model = gemini();
		const context: Context = {
			messages: [
				{ role: "user", content: "shoot", timestamp: 1 },
				{
					role: "assistant",
					content: [
						{ type: "text", text: "Taking it.", textSignature: "sig-text" },
						{ type: "toolCall", id: "c1", name: "screenshot", arguments: {} },
					],
					api: model.api,
					provider: model.provider,
					model: model.id,
					usage: {
						input: 0,
						output: 0,
						cacheRead: 0,
						cacheWrite: 0,
						totalTokens: 0,
						cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
					},
					stopReason: "toolUse",
					timestamp: 2,
				},
				{
					role: "toolResult",
					toolCallId: "c1",
					toolName: "screenshot",
					content: [{ type: "image", mimeType: "image/png", data: "AAAA" }],
					isError: false,
					timestamp: 3,
				},
			],
		};
		expect(buildGoogleRequest(model, context).contents.slice(1)).toEqual([
			{
				role: "model",
				parts: [
					{ text: "Taking it.", thoughtSignature: "sig-text" },
					{ functionCall: { id: "c1", name: "screenshot", args: {} } },
				],
			},
			{
				role: "user",
				parts: [
					{ functionResponse: { id: "c1", name: "screenshot", response: { output: "(image attached)" } } },
					{ inlineData: { mimeType: "image/png", data: "AAAA" } },
				],
			},
		]);
	});
});

describe("normalizeError", () => {
	it("puts the status before an error reported inside the stream", () => {
		const body = '{"error":{"code":429,"message":"Resource has been exhausted.","status":"RESOURCE_EXHAUSTED"}}';
		const error = new ApiError({ status: 429, message: `got status: RESOURCE_EXHAUSTED. ${body}` });
		const normalized = normalizeError(error);
		expect(normalized instanceof Error && normalized.message).toBe(`429 ${body}`);
		expect(normalized instanceof Error && normalized.cause).toBe(error);
	});

	it("leaves other errors alone", () => {
		const error = new TypeError("fetch failed");
		expect(normalizeError(error)).toBe(error);
	});
});
