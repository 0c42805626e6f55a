import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelRegistry } from "../../src/llm/model-registry.js";
import { resolveModelPattern } from "../../src/llm/model-resolver.js";

let dir: string;
let registry: ModelRegistry;

const provider = (models: Record<string, unknown>[], extra: Record<string, unknown> = {}) => ({
	api: "openai-completions",
	baseUrl: "http://localhost:1/v1",
	models,
	...extra,
});

// Custom providers with ids no built-in model uses, so the tests do not depend on the catalog.
beforeAll(() => {
	dir = mkdtempSync(join(tmpdir(), "atomic-test-"));
	const providers = {
		alpha: provider([
			{ id: "zeta-pro", name: "Zeta Pro" },
			{ id: "shared-id" },
			{ id: "omega-1-20240101" },
			{ id: "omega-1-20250101" },
			{ id: "omega-2" },
			{ id: "omega-10" },
			{ id: "delta-20240101" },
			{ id: "delta-20250101" },
		]),
		beta: provider([
			{ id: "shared-id", reasoning: true },
			{ id: "quux", name: "Kappa Nickname" },
		]),
		local: provider([{ id: "qwen2.5:7b" }, { id: "qwen2.5:14b" }]),
		router: provider([{ id: "alpha/routed-only" }, { id: "alpha/zeta-pro" }]),
		keyOnly: { apiKey: "k" },
	};
	writeFileSync(join(dir, "models.json"), JSON.stringify({ providers }));
	registry = new ModelRegistry(dir, {});
	if (registry.errors.length > 0) throw new Error(registry.errors.join("\n"));
});

afterAll(() => {
	rmSync(dir, { recursive: true, force: true });
});

const resolveId = (pattern: string, providerFlag?: string) => {
	const resolved = resolveModelPattern(registry, pattern, providerFlag);
	return `${resolved.model.provider}/${resolved.model.id}`;
};

describe("resolveModelPattern: exact matches", () => {
	it("finds an exact id", () => {
		const resolved = resolveModelPattern(registry, "zeta-pro");
		expect(resolved).toEqual({ model: registry.find("alpha", "zeta-pro") });
	});

	it("finds provider/id, with the provider prefix matched case-insensitively", () => {
		expect(resolveId("beta/shared-id")).toBe("beta/shared-id");
		expect(resolveId("BETA/shared-id")).toBe("beta/shared-id");
	});

	it("takes --provider case-insensitively", () => {
		expect(resolveId("shared-id", "Beta")).toBe("beta/shared-id");
		expect(resolveId("shared-id", "ALPHA")).toBe("alpha/shared-id");
	});

	it("rejects an unknown --provider", () => {
		expect(() => resolveModelPattern(registry, "zeta-pro", "nobody")).toThrow(
			'Unknown provider "nobody". Use --list-models to see available providers/models.',
		);
	});

	it("refuses a bare id that several providers have", () => {
		expect(() => resolveModelPattern(registry, "shared-id")).toThrow(
			'Model "shared-id" is ambiguous across providers: alpha/shared-id, beta/shared-id. Use --provider or provider/model.',
		);
	});

	it("matches an id that contains ':' as a whole", () => {
		expect(resolveModelPattern(registry, "qwen2.5:7b")).toEqual({ model: registry.find("local", "qwen2.5:7b") });
		expect(resolveModelPattern(registry, "local/qwen2.5:14b")).toEqual({
			model: registry.find("local", "qwen2.5:14b"),
		});
	});

	it("finds an id that itself starts with another provider's name", () => {
		expect(resolveId("alpha/routed-only")).toBe("router/alpha/routed-only");
		expect(resolveId("router/alpha/routed-only")).toBe("router/alpha/routed-only");
	});

	it("reads provider/id first when a router also serves that exact id", () => {
		expect(resolveId("alpha/zeta-pro")).toBe("alpha/zeta-pro");
		expect(resolveId("router/alpha/zeta-pro")).toBe("router/alpha/zeta-pro");
	});
});

describe("resolveModelPattern: fuzzy matches", () => {
	it("prefers aliases over dated ids, then the highest id", () => {
		expect(resolveId("omega")).toBe("alpha/omega-10");
		expect(resolveId("omega-1")).toBe("alpha/omega-10");
		expect(resolveId("omega-1-2024")).toBe("alpha/omega-1-20240101");
	});

	it("picks the newest dated id when only dated ids match", () => {
		expect(resolveId("delta")).toBe("alpha/delta-20250101");
	});

	it("matches the display name and ignores case", () => {
		expect(resolveId("kappa")).toBe("beta/quux");
		expect(resolveId("ZETA")).toBe("alpha/zeta-pro");
	});

	it("restricts fuzzy matches to --provider", () => {
		expect(resolveId("qwen", "local")).toBe("local/qwen2.5:14b");
		expect(resolveId("omega", "beta")).toBe("beta/omega");
	});
});

describe("resolveModelPattern: thinking suffix", () => {
	it("splits a :<level> suffix off the pattern", () => {
		expect(resolveModelPattern(registry, "zeta-pro:high")).toEqual({
			model: registry.find("alpha", "zeta-pro"),
			thinkingLevel: "high",
		});
		expect(resolveModelPattern(registry, "beta/shared-id:off").thinkingLevel).toBe("off");
		expect(resolveModelPattern(registry, "omega:xhigh")).toMatchObject({ thinkingLevel: "xhigh" });
		expect(resolveId("omega:xhigh")).toBe("alpha/omega-10");
	});

	it("splits the suffix after an id that contains ':'", () => {
		expect(resolveModelPattern(registry, "qwen2.5:7b:low")).toEqual({
			model: registry.find("local", "qwen2.5:7b"),
			thinkingLevel: "low",
		});
	});

	it("keeps a suffix that is not a level as part of the id", () => {
		expect(() => resolveModelPattern(registry, "zeta-pro:turbo")).toThrow(
			'Model "zeta-pro:turbo" not found. Use --list-models to see available models.',
		);
	});
});

describe("resolveModelPattern: unknown ids", () => {
	it("uses an unknown id under a known provider as a copy of that provider's first model, with a warning", () => {
		const template = registry.find("alpha", "zeta-pro");
		expect(resolveModelPattern(registry, "alpha/brand-new")).toEqual({
			model: { ...template, id: "brand-new", name: "brand-new" },
			warning: 'Model "brand-new" not found for provider "alpha". Using custom model id.',
		});
		expect(resolveModelPattern(registry, "brand-new", "ALPHA").model.id).toBe("brand-new");
		expect(resolveModelPattern(registry, "local/llama3:8b").model).toMatchObject({
			provider: "local",
			id: "llama3:8b",
		});
	});

	it("forces reasoning on for a custom id with a thinking suffix other than off", () => {
		const high = resolveModelPattern(registry, "alpha/brand-new:high");
		expect(high.model).toMatchObject({ provider: "alpha", id: "brand-new", reasoning: true });
		expect(high.thinkingLevel).toBe("high");
		expect(high.warning).toBe('Model "brand-new" not found for provider "alpha". Using custom model id.');

		const off = resolveModelPattern(registry, "alpha/brand-new:off");
		expect(off.model.reasoning).toBe(false);
		expect(off.thinkingLevel).toBe("off");
	});

	it("does not alter the registry's models", () => {
		resolveModelPattern(registry, "alpha/another-new:high");
		expect(registry.find("alpha", "zeta-pro")?.reasoning).toBe(false);
		expect(registry.find("alpha", "another-new")).toBeUndefined();
	});

	it("reports a pattern that matches nothing", () => {
		expect(() => resolveModelPattern(registry, "no-such-thing-anywhere")).toThrow(
			'Model "no-such-thing-anywhere" not found. Use --list-models to see available models.',
		);
		expect(() => resolveModelPattern(registry, "nobody/zeta-pro-x")).toThrow(
			'Model "nobody/zeta-pro-x" not found. Use --list-models to see available models.',
		);
	});

	it("names the provider when a known provider has no model to copy", () => {
		expect(() => resolveModelPattern(registry, "something", "keyOnly")).toThrow(
			'Model "keyOnly/something" not found. Use --list-models to see available models.',
		);
	});
});
