import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { builtInModels, builtInProviderDefaults } from "../../src/llm/catalog.js";
import { ModelRegistry } from "../../src/llm/model-registry.js";
import { APIS, type Model } from "../../src/llm/types.js";

let dir: string;

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "atomic-test-"));
});

afterEach(() => {
	rmSync(dir, { recursive: true, force: true });
});

function registry(providers: Record<string, unknown> | undefined, env: NodeJS.ProcessEnv = {}): ModelRegistry {
	if (providers) writeFileSync(join(dir, "models.json"), JSON.stringify({ providers }));
	return new ModelRegistry(dir, { PATH: process.env.PATH, ...env });
}

/** The first built-in anthropic model; the catalog's exact contents change, its shape does not. */
function anthropicModel(): Model {
	const model = builtInModels().find((candidate) => candidate.provider === "anthropic");
	if (!model) throw new Error("the catalog has no anthropic model");
	return model;
}

const anthropicDefaults = () => {
	const defaults = builtInProviderDefaults("anthropic");
	if (!defaults) throw new Error("anthropic is not built in");
	return defaults;
};

describe("ModelRegistry: built-in catalog", () => {
	it("holds the built-in models unchanged when there is no models.json", () => {
		const models = registry(undefined);
		expect(models.errors).toEqual([]);
		expect(models.all()).toEqual(builtInModels());
		expect(models.providers()).toContain("anthropic");
		expect(models.modelsJsonPath).toBe(join(dir, "models.json"));
	});

	it("gives every built-in model the required fields", () => {
		for (const model of registry(undefined).all()) {
			expect(typeof model.id).toBe("string");
			expect(model.id.length).toBeGreaterThan(0);
			expect(model.name.length).toBeGreaterThan(0);
			expect(APIS).toContain(model.api);
			expect(model.baseUrl).toMatch(/^https:\/\//);
			expect(typeof model.reasoning).toBe("boolean");
			expect(model.input).toContain("text");
			expect(model.contextWindow).toBeGreaterThan(0);
			expect(model.maxTokens).toBeGreaterThan(0);
			for (const key of ["input", "output", "cacheRead", "cacheWrite"] as const) {
				expect(model.cost[key]).toBeGreaterThanOrEqual(0);
			}
		}
	});

	it("knows built-in providers and models.json providers, and nothing else", () => {
		const models = registry({ keyless: { apiKey: "x" } });
		expect(models.isKnownProvider("anthropic")).toBe(true);
		expect(models.isKnownProvider("openai")).toBe(true);
		expect(models.isKnownProvider("google")).toBe(true);
		expect(models.isKnownProvider("keyless")).toBe(true);
		expect(models.isKnownProvider("nobody")).toBe(false);
	});
});

describe("ModelRegistry: models.json composition", () => {
	it("adds a custom provider's models after the built-ins with defaults for omitted fields", () => {
		const models = registry({
			local: {
				api: "openai-completions",
				baseUrl: "http://localhost:8080/v1",
				models: [{ id: "small" }, { id: "big", name: "Big", reasoning: true, input: ["text", "image"] }],
			},
		});
		expect(models.errors).toEqual([]);
		const all = models.all();
		expect(all.slice(0, builtInModels().length)).toEqual(builtInModels());
		expect(all.slice(builtInModels().length).map((model) => model.id)).toEqual(["small", "big"]);
		expect(models.find("local", "small")).toEqual({
			id: "small",
			name: "small",
			api: "openai-completions",
			provider: "local",
			baseUrl: "http://localhost:8080/v1",
			reasoning: false,
			input: ["text"],
			contextWindow: 128_000,
			maxTokens: 16_384,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		});
		expect(models.find("local", "big")).toMatchObject({ name: "Big", reasoning: true, input: ["text", "image"] });
		expect(models.providers().at(-1)).toBe("local");
	});

	it("lets a model set its own api, baseUrl, partial cost, headers and compat over the provider's", () => {
		const models = registry({
			mixed: {
				api: "openai-completions",
				baseUrl: "http://provider",
				headers: { "X-Provider": "p", "X-Shared": "provider" },
				compat: { supportsStore: false, supportsDeveloperRole: false },
				models: [
					{
						id: "own",
						api: "anthropic-messages",
						baseUrl: "http://own",
						cost: { input: 2 },
						headers: { "X-Shared": "model" },
						compat: { supportsDeveloperRole: true },
					},
					{ id: "inherits" },
				],
			},
		});
		expect(models.find("mixed", "own")).toMatchObject({
			api: "anthropic-messages",
			baseUrl: "http://own",
			cost: { input: 2, output: 0, cacheRead: 0, cacheWrite: 0 },
			headers: { "X-Provider": "p", "X-Shared": "model" },
			compat: { supportsStore: false, supportsDeveloperRole: true },
		});
		expect(models.find("mixed", "inherits")).toMatchObject({
			api: "openai-completions",
			baseUrl: "http://provider",
			headers: { "X-Provider": "p", "X-Shared": "provider" },
			compat: { supportsStore: false, supportsDeveloperRole: false },
		});
	});

	it("replaces a built-in model with a models entry of the same id, inheriting the provider's api and baseUrl", () => {
		const original = anthropicModel();
		const count = builtInModels().filter((model) => model.provider === "anthropic").length;
		const models = registry({ anthropic: { models: [{ id: original.id, contextWindow: 1000 }, { id: "extra-x" }] } });
		expect(models.errors).toEqual([]);
		const anthropic = models.all().filter((model) => model.provider === "anthropic");
		expect(anthropic).toHaveLength(count + 1);
		expect(models.find("anthropic", original.id)).toEqual({
			id: original.id,
			name: original.id,
			api: anthropicDefaults().api,
			provider: "anthropic",
			baseUrl: anthropicDefaults().baseUrl,
			reasoning: false,
			input: ["text"],
			contextWindow: 1000,
			maxTokens: 16_384,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		});
		expect(models.all().indexOf(models.find("anthropic", original.id) as Model)).toBe(
			builtInModels().findIndex((model) => model.provider === "anthropic" && model.id === original.id),
		);
		expect(models.find("anthropic", "extra-x")?.baseUrl).toBe(anthropicDefaults().baseUrl);
	});

	it("applies provider-wide baseUrl, headers and compat to every built-in model of that provider", () => {
		const models = registry({
			anthropic: {
				baseUrl: "http://proxy.local",
				headers: { "X-Proxy": "yes" },
				compat: { supportsStrictTools: true },
			},
		});
		expect(models.errors).toEqual([]);
		const builtIn = builtInModels().filter((model) => model.provider === "anthropic");
		expect(builtIn.length).toBeGreaterThan(0);
		for (const original of builtIn) {
			const model = models.find("anthropic", original.id);
			expect(model).toEqual({
				...original,
				baseUrl: "http://proxy.local",
				headers: { ...original.headers, "X-Proxy": "yes" },
				compat: { ...original.compat, supportsStrictTools: true },
			});
		}
		for (const other of models.all().filter((model) => model.provider !== "anthropic")) {
			expect(other.baseUrl).not.toBe("http://proxy.local");
		}
	});

	it("merges modelOverrides into built-in and custom models", () => {
		const original = anthropicModel();
		const models = registry({
			anthropic: {
				modelOverrides: {
					[original.id]: {
						name: "Renamed",
						contextWindow: 50_000,
						maxTokens: 1234,
						reasoning: false,
						input: ["text"],
						cost: { output: 99 },
						thinkingLevelMap: { xhigh: "xhigh" },
						headers: { "X-One": "1" },
						compat: { supportsStrictMode: true },
					},
				},
			},
			local: {
				api: "openai-completions",
				baseUrl: "http://l",
				headers: { "X-Base": "b" },
				models: [{ id: "m", cost: { input: 1 } }],
				modelOverrides: { m: { baseUrl: "http://moved", api: "openai-responses", headers: { "X-Two": "2" } } },
			},
		});
		expect(models.errors).toEqual([]);
		expect(models.find("anthropic", original.id)).toEqual({
			...original,
			name: "Renamed",
			contextWindow: 50_000,
			maxTokens: 1234,
			reasoning: false,
			input: ["text"],
			cost: { ...original.cost, output: 99 },
			thinkingLevelMap: { ...original.thinkingLevelMap, xhigh: "xhigh" },
			headers: { ...original.headers, "X-One": "1" },
			compat: { ...original.compat, supportsStrictMode: true },
		});
		expect(models.find("local", "m")).toMatchObject({
			baseUrl: "http://moved",
			api: "openai-responses",
			headers: { "X-Base": "b", "X-Two": "2" },
			cost: { input: 1, output: 0 },
		});
	});

	it("reports an override of an unknown model and keeps loading", () => {
		const models = registry({ anthropic: { modelOverrides: { "no-such-model": { name: "x" } } } });
		expect(models.errors).toEqual([
			`${join(dir, "models.json")}: provider "anthropic": modelOverrides["no-such-model"]: no such model`,
		]);
		expect(models.all()).toEqual(builtInModels());
	});

	it("reports models that have no api or no baseUrl and leaves them out", () => {
		const path = join(dir, "models.json");
		const models = registry({
			noApi: { baseUrl: "http://x", models: [{ id: "a" }] },
			noUrl: { api: "openai-completions", models: [{ id: "b" }, { id: "c", baseUrl: "http://c" }] },
		});
		expect(models.errors).toEqual([
			`${path}: provider "noApi": model "a": api is required (set it on the model or the provider)`,
			`${path}: provider "noUrl": model "b": baseUrl is required when defining custom models`,
		]);
		expect(models.find("noApi", "a")).toBeUndefined();
		expect(models.find("noUrl", "b")).toBeUndefined();
		expect(models.find("noUrl", "c")?.baseUrl).toBe("http://c");
	});

	it("collects parse errors and reloads the file on reload()", () => {
		const path = join(dir, "models.json");
		writeFileSync(path, "{ broken");
		const models = new ModelRegistry(dir, {});
		expect(models.errors).toHaveLength(1);
		expect(models.errors[0]).toMatch(/not valid JSON/);
		writeFileSync(
			path,
			JSON.stringify({
				providers: { later: { api: "openai-completions", baseUrl: "http://l", models: [{ id: "z" }] } },
			}),
		);
		models.reload();
		expect(models.errors).toEqual([]);
		expect(models.find("later", "z")?.name).toBe("z");
	});
});
