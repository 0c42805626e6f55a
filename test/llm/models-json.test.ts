import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readModelsJson } from "../../src/llm/models-json.js";

let dir: string;
let path: string;

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "atomic-test-"));
	path = join(dir, "models.json");
});

afterEach(() => {
	rmSync(dir, { recursive: true, force: true });
});

function load(content: unknown) {
	writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
	return readModelsJson(path);
}

describe("readModelsJson: file level", () => {
	it("treats a missing file as empty, without errors", () => {
		const result = readModelsJson(join(dir, "absent.json"));
		expect(result.providers.size).toBe(0);
		expect(result.errors).toEqual([]);
		expect(result.path).toBe(join(dir, "absent.json"));
	});

	it("reports invalid JSON with the file path", () => {
		const result = load("{ not json");
		expect(result.providers.size).toBe(0);
		expect(result.errors).toHaveLength(1);
		expect(result.errors[0]).toMatch(new RegExp(`^${escapeRegExp(path)}: not valid JSON \\(`));
	});

	it("does not quote the file's text (which may hold a literal key) in the JSON error", () => {
		const result = load('{"providers": {"p": {"apiKey": sk-live-supersecret}}}');
		expect(result.errors).toHaveLength(1);
		expect(result.errors[0]).not.toContain("sk-live");
		expect(result.errors[0]).not.toContain("supersecret");
	});

	it.each([
		["[]", "(the file)", 'an object with a "providers" object'],
		["42", "(the file)", 'an object with a "providers" object'],
		['{"providers": []}', "providers", "an object keyed by provider name"],
		['{"other": {}}', "providers", "an object keyed by provider name"],
	])("rejects %s without a providers object, naming the key and what was expected", (text, key, expected) => {
		const result = load(text);
		expect(result.errors).toEqual([`${path}: ${key}: expected ${expected}`]);
	});

	it("accepts an empty providers object", () => {
		const result = load({ providers: {} });
		expect(result.errors).toEqual([]);
		expect(result.providers.size).toBe(0);
	});
});

describe("readModelsJson: providers", () => {
	it("reads every provider field and keeps file order", () => {
		const result = load({
			providers: {
				local: {
					baseUrl: "  http://localhost:11434/v1  ",
					api: "openai-completions",
					apiKey: "$LOCAL_KEY",
					authHeader: true,
					headers: { "X-Team": "core" },
					compat: { supportsStore: false, maxTokensField: "max_tokens", thinkingFormat: "qwen" },
					models: [{ id: "  llama  " }],
				},
				anthropic: { modelOverrides: { "claude-x": { name: "Renamed" } } },
			},
		});
		expect(result.errors).toEqual([]);
		expect([...result.providers.keys()]).toEqual(["local", "anthropic"]);
		expect(result.providers.get("local")).toEqual({
			baseUrl: "http://localhost:11434/v1",
			api: "openai-completions",
			apiKey: "$LOCAL_KEY",
			authHeader: true,
			headers: { "X-Team": "core" },
			compat: { supportsStore: false, maxTokensField: "max_tokens", thinkingFormat: "qwen" },
			models: [{ id: "llama" }],
		});
		expect(result.providers.get("anthropic")).toEqual({ modelOverrides: { "claude-x": { name: "Renamed" } } });
	});

	it.each([
		[{ baseUrl: "  ", models: [] }, "baseUrl: expected a non-empty string"],
		[{ baseUrl: 5, models: [] }, "baseUrl: expected a non-empty string"],
		[
			{ api: "bogus", models: [] },
			'api: expected one of "anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai"',
		],
		[{ apiKey: 12 }, 'apiKey: expected a string ("$VAR", "!command" or the key)'],
		[{ authHeader: "yes", apiKey: "k" }, "authHeader: expected true or false"],
		[{ headers: { "X-A": 1 }, apiKey: "k" }, 'headers["X-A"]: expected a string'],
		[{ headers: ["x"], apiKey: "k" }, "headers: expected an object of string values"],
		[{ compat: "no", apiKey: "k" }, "compat: expected an object"],
		[{ compat: { supportsStore: "yes" }, apiKey: "k" }, "compat.supportsStore: expected true or false"],
		[
			{ compat: { maxTokensField: "max_output" }, apiKey: "k" },
			'compat.maxTokensField: expected one of "max_tokens", "max_completion_tokens"',
		],
		[
			{ compat: { thinkingFormat: "deepseek" }, apiKey: "k" },
			'compat.thinkingFormat: expected one of "reasoning_effort", "openrouter", "qwen", "none"',
		],
		[
			{ compat: { sendReasoning: true }, apiKey: "k" },
			'compat.sendReasoning: expected one of "tool-loop", "tool-turns", "always"',
		],
	])("skips a provider with an invalid field %j and names the key path and what was expected", (provider, problem) => {
		const result = load({ providers: { broken: provider, fine: { apiKey: "k" } } });
		expect(result.errors).toEqual([`${path}: providers.broken.${problem}`]);
		expect(result.providers.has("broken")).toBe(false);
		expect(result.providers.get("fine")).toEqual({ apiKey: "k" });
	});

	it("rejects a provider that is not an object", () => {
		const result = load({ providers: { broken: "x", list: [1] } });
		expect(result.errors).toEqual([
			`${path}: providers.broken: expected an object`,
			`${path}: providers.list: expected an object`,
		]);
		expect(result.providers.size).toBe(0);
	});

	it.each([[{}], [{ api: "openai-completions" }]])("rejects a provider that sets nothing: %j", (provider) => {
		const result = load({ providers: { idle: provider } });
		expect(result.providers.has("idle")).toBe(false);
		expect(result.errors).toEqual([
			`${path}: providers.idle: expected at least one of baseUrl, headers, compat, modelOverrides, models, apiKey, authHeader (it sets nothing)`,
		]);
	});

	it("keeps a provider whose models field is not an array, reporting it", () => {
		const result = load({ providers: { p: { baseUrl: "http://x", models: { id: "a" } } } });
		expect(result.errors).toEqual([`${path}: providers.p.models: expected an array of models`]);
		expect(result.providers.get("p")).toEqual({ baseUrl: "http://x" });
	});
});

describe("readModelsJson: models", () => {
	it("reads every model field", () => {
		const model = {
			id: "m1",
			name: "Model One",
			api: "openai-responses",
			baseUrl: "http://m1",
			reasoning: true,
			thinkingLevelMap: { off: null, high: "max-effort", xhigh: "xhigh" },
			input: ["text", "image"],
			contextWindow: 1000.9,
			maxTokens: 99.5,
			cost: { input: 1, output: 2.5, cacheRead: 0, cacheWrite: 0.1 },
			headers: { "X-M": "1" },
			compat: { supportsDeveloperRole: true },
		};
		const result = load({ providers: { p: { models: [model] } } });
		expect(result.errors).toEqual([]);
		expect(result.providers.get("p")?.models).toEqual([{ ...model, contextWindow: 1000, maxTokens: 99 }]);
	});

	it("skips invalid entries, names file, provider, entry and field, and loads the rest", () => {
		const result = load({
			providers: {
				p: {
					baseUrl: "http://x",
					models: [
						{ id: "first" },
						{ id: "" },
						"text",
						{ id: "ctx", contextWindow: 0 },
						{ id: "max", maxTokens: -5 },
						{ id: "inf", contextWindow: "big" },
						{ id: "in", input: ["audio"] },
						{ id: "in2", input: [] },
						{ id: "cost", cost: { input: -1 } },
						{ id: "cost2", cost: 3 },
						{ id: "tlm", thinkingLevelMap: { ultra: "x" } },
						{ id: "tlm2", thinkingLevelMap: { high: 3 } },
						{ id: "tlm3", thinkingLevelMap: [] },
						{ id: "reason", reasoning: "yes" },
						{ id: "api", api: "grpc" },
						{ id: "name", name: "" },
						{ id: "url", baseUrl: 7 },
						{ id: "hdr", headers: { a: false } },
						{ id: "cmp", compat: { supportsStrictTools: 1 } },
						{ id: "last" },
					],
				},
			},
		});
		const where = `${path}: providers.p.models`;
		const levels = "an object keyed by thinking level (off, minimal, low, medium, high, xhigh, max)";
		expect(result.errors).toEqual([
			`${where}[1].id: expected a non-empty string`,
			`${where}[2]: expected an object`,
			`${where}[3].contextWindow: expected a number > 0`,
			`${where}[4].maxTokens: expected a number > 0`,
			`${where}[5].contextWindow: expected a number > 0`,
			`${where}[6].input[0]: expected one of "text", "image"`,
			`${where}[7].input: expected a non-empty array of "text" and "image"`,
			`${where}[8].cost.input: expected a number >= 0`,
			`${where}[9].cost: expected an object of prices (input, output, cacheRead, cacheWrite)`,
			`${where}[10].thinkingLevelMap.ultra: expected no such key (${levels})`,
			`${where}[11].thinkingLevelMap.high: expected a string or null`,
			`${where}[12].thinkingLevelMap: expected ${levels}`,
			`${where}[13].reasoning: expected true or false`,
			`${where}[14].api: expected one of "anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai"`,
			`${where}[15].name: expected a non-empty string`,
			`${where}[16].baseUrl: expected a non-empty string`,
			`${where}[17].headers.a: expected a string`,
			`${where}[18].compat.supportsStrictTools: expected true or false`,
		]);
		expect(result.providers.get("p")?.models).toEqual([{ id: "first" }, { id: "last" }]);
		expect(result.providers.get("p")?.baseUrl).toBe("http://x");
	});

	it("reads modelOverrides without requiring an id and skips invalid overrides", () => {
		const result = load({
			providers: {
				p: {
					modelOverrides: {
						good: { name: "Good", cost: { input: 4 }, contextWindow: 5000 },
						bad: { maxTokens: 0 },
						notObject: 3,
					},
				},
			},
		});
		expect(result.errors).toEqual([
			`${path}: providers.p.modelOverrides.bad.maxTokens: expected a number > 0`,
			`${path}: providers.p.modelOverrides.notObject: expected an object`,
		]);
		expect(result.providers.get("p")?.modelOverrides).toEqual({
			good: { name: "Good", cost: { input: 4 }, contextWindow: 5000 },
		});
	});

	it("reports modelOverrides that are not an object", () => {
		const result = load({ providers: { p: { modelOverrides: ["a"], apiKey: "k" } } });
		expect(result.errors).toEqual([`${path}: providers.p.modelOverrides: expected an object keyed by model id`]);
		expect(result.providers.get("p")).toEqual({ apiKey: "k" });
	});
});

describe("readModelsJson: compat", () => {
	function compatOf(compat: Record<string, unknown>) {
		const result = load({ providers: { p: { compat, models: [{ id: "m", compat }] } } });
		expect(result.errors).toEqual([]);
		const provider = result.providers.get("p");
		return { provider: provider?.compat, model: provider?.models?.[0]?.compat };
	}

	it("mirrors supportsOpenAIGrammarTools into the supportsGrammarTools alias", () => {
		const both = { supportsOpenAIGrammarTools: true, supportsGrammarTools: true };
		expect(compatOf({ supportsOpenAIGrammarTools: true })).toEqual({ provider: both, model: both });
	});

	it("fills supportsOpenAIGrammarTools from the alias when only the alias is given", () => {
		const both = { supportsOpenAIGrammarTools: false, supportsGrammarTools: false };
		expect(compatOf({ supportsGrammarTools: false })).toEqual({ provider: both, model: both });
	});

	it("lets the canonical claim win when the two disagree", () => {
		const both = { supportsOpenAIGrammarTools: true, supportsGrammarTools: true };
		expect(compatOf({ supportsOpenAIGrammarTools: true, supportsGrammarTools: false })).toEqual({
			provider: both,
			model: both,
		});
	});

	it("adds no alias when neither is set and keeps unknown keys", () => {
		const compat = { supportsStrictMode: true, somethingElse: "kept" };
		expect(compatOf(compat)).toEqual({ provider: compat, model: compat });
	});
});

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
