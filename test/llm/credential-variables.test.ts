import { describe, expect, it } from "vitest";
import { credentialVariables, looksSecret, referencedVariables } from "../../src/llm/credential-variables.js";
import type { ProviderConfig } from "../../src/llm/models-json.js";
import { toolEnvironment } from "../../src/tools/environment.js";

describe("credential variables", () => {
	it("reads $VAR and braced references, not $$, and none from a !command", () => {
		expect(referencedVariables(`$A-\${B_2}$$C`)).toEqual(["A", "B_2"]);
		expect(referencedVariables("!pass show $KEY")).toEqual([]);
	});

	it("knows secret-looking names", () => {
		expect(["X_API_KEY", "GH_TOKEN", "ORG_SECRET", "DB_PASSWORD", "APIKEY", "AWS_ACCESS_KEY"].every(looksSecret)).toBe(
			true,
		);
		expect(["USER", "TOKENIZER", "HOME", "MONKEY"].some(looksSecret)).toBe(false);
	});

	it("lists provider key variables, apiKey and auth.json references, and secret-looking header references", () => {
		const providers = new Map<string, ProviderConfig>([
			[
				"proxy",
				{
					apiKey: "$PROXY_KEY_VALUE",
					headers: { "x-a": "$ORG_TOKEN", "x-b": "$USER" },
					models: [{ id: "m", headers: { "x-c": `\${MODEL_SECRET}` } }],
					modelOverrides: { n: { headers: { "x-d": "$OVERRIDE_API_KEY" } } },
				},
			],
		]);
		const names = credentialVariables(providers, ["$STORED_KEY", "literal-key"]);
		for (const name of [
			"ANTHROPIC_API_KEY",
			"OPENAI_API_KEY",
			"GEMINI_API_KEY",
			"HF_TOKEN",
			"PROXY_KEY_VALUE",
			"ORG_TOKEN",
			"MODEL_SECRET",
			"OVERRIDE_API_KEY",
			"STORED_KEY",
		]) {
			expect(names.has(name), name).toBe(true);
		}
		expect(names.has("USER")).toBe(false);
	});
});

describe("toolEnvironment", () => {
	const env = { OPENAI_API_KEY: "k", GITHUB_TOKEN: "g", PATH: "/bin" };
	const hidden = new Set(["OPENAI_API_KEY"]);

	it("removes the credential variables by default and keeps everything else", () => {
		expect(toolEnvironment(env, hidden)).toEqual({ GITHUB_TOKEN: "g", PATH: "/bin" });
	});

	it("keeps all of them with true, or the named ones", () => {
		expect(toolEnvironment(env, hidden, true)).toEqual(env);
		expect(toolEnvironment(env, hidden, ["OPENAI_API_KEY"])).toEqual(env);
		expect(toolEnvironment(env, hidden, ["OTHER"])).toEqual({ GITHUB_TOKEN: "g", PATH: "/bin" });
	});
});
