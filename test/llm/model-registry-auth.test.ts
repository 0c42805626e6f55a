import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { builtInModels } from "../../src/llm/catalog.js";
import { ModelRegistry } from "../../src/llm/model-registry.js";
import type { Model } from "../../src/llm/types.js";

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

describe("ModelRegistry: credentials", () => {
	const custom = (extra: Record<string, unknown> = {}) => ({
		api: "openai-completions",
		baseUrl: "http://localhost:1/v1",
		models: [{ id: "m" }],
		...extra,
	});

	it("available() lists only models whose provider has credentials, in registry order", () => {
		const models = registry(
			{ keyless: custom(), needsVar: custom({ apiKey: "$UNSET_VAR" }), hasVar: custom({ apiKey: "$SET_VAR" }) },
			{ ANTHROPIC_API_KEY: "ak", SET_VAR: "v" },
		);
		const available = models.available();
		const anthropic = builtInModels().filter((model) => model.provider === "anthropic");
		expect(available.map((model) => `${model.provider}/${model.id}`)).toEqual([
			...anthropic.map((model) => `anthropic/${model.id}`),
			"keyless/m",
			"hasVar/m",
		]);
		expect(models.hasCredentials("openai")).toBe(false);
		expect(models.authStatus("anthropic")).toEqual({
			configured: true,
			source: "environment",
			label: "ANTHROPIC_API_KEY",
		});
		expect(models.authStatus("keyless")).toEqual({ configured: true, source: "not-required" });
	});

	it(`requestAuth() resolves $VAR, \${VAR}, !command and literal header values`, () => {
		const models = registry(
			{
				local: custom({
					apiKey: `\${LOCAL_KEY}`,
					headers: {
						"X-Bare": "$TEAM",
						"X-Braced": `team-\${TEAM}`,
						"X-Command": "!printf from-command",
						"X-Literal": "plain",
						"X-Empty": "$UNSET_VAR",
					},
				}),
			},
			{ LOCAL_KEY: "local-secret", TEAM: "core" },
		);
		const model = models.find("local", "m") as Model;
		expect(models.requestAuth(model)).toEqual({
			apiKey: "local-secret",
			headers: { "X-Bare": "core", "X-Braced": "team-core", "X-Command": "from-command", "X-Literal": "plain" },
		});
	});

	it("requestAuth() adds Authorization: Bearer when authHeader is true", () => {
		const models = registry(
			{ withHeader: custom({ apiKey: "$KEY", authHeader: true }), without: custom({ apiKey: "$KEY" }) },
			{ KEY: "secret-key" },
		);
		expect(models.requestAuth(models.find("withHeader", "m") as Model)).toEqual({
			apiKey: "secret-key",
			headers: { Authorization: "Bearer secret-key" },
		});
		expect(models.requestAuth(models.find("without", "m") as Model)).toEqual({ apiKey: "secret-key", headers: {} });
	});

	it("requestAuth() sends no key and no Authorization for a keyless custom provider", () => {
		const models = registry({ local: custom({ authHeader: true }) });
		expect(models.requestAuth(models.find("local", "m") as Model)).toEqual({ apiKey: undefined, headers: {} });
	});

	it("requestAuth() uses a runtime key set on the credential store", () => {
		const models = registry(undefined);
		models.credentials.setRuntimeKey("anthropic", "runtime-key");
		expect(models.requestAuth(anthropicModel())).toEqual({ apiKey: "runtime-key", headers: {} });
	});

	it("requestAuth() names the variable to set when a built-in provider has no key", () => {
		const models = registry(undefined);
		expect(() => models.requestAuth(anthropicModel())).toThrow(
			`No API key found for anthropic. Set ANTHROPIC_API_KEY, or store a key in ${join(dir, "auth.json")}.`,
		);
	});
});
