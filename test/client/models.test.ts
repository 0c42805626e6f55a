import { describe, expect, it } from "vitest";
import { startClient, useClientHarness } from "./helpers.js";

const harness = useClientHarness();

function model(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		id,
		name: `Model ${id}`,
		reasoning: false,
		input: ["text"],
		contextWindow: 64_000,
		maxTokens: 4096,
		...extra,
	};
}

/** One provider whose models make different constrained-sampling claims in models.json. */
function claimingProvider(): Record<string, unknown> {
	return {
		claims: {
			baseUrl: harness.server.baseUrl("openai-completions"),
			api: "openai-completions",
			apiKey: "test-key",
			headers: { "x-secret": "never on the wire" },
			models: [
				model("strict", {
					reasoning: true,
					contextWindow: 128_000,
					compat: { supportsStrictTools: true, supportsStrictMode: false, supportsGrammarTools: true },
				}),
				model("canonical", { compat: { supportsOpenAIGrammarTools: false } }),
				model("switches-only", { compat: { supportsStore: false, maxTokensField: "max_tokens" } }),
				model("bare"),
			],
		},
	};
}

describe("getAvailableModels", () => {
	it("maps each model to ModelInfo with only the claims its configuration makes", async () => {
		const { client } = await startClient(harness.server, { providers: claimingProvider() });
		expect(await client.getAvailableModels()).toStrictEqual([
			{
				provider: "claims",
				id: "strict",
				contextWindow: 128_000,
				reasoning: true,
				compat: {
					supportsStrictTools: true,
					supportsStrictMode: false,
					supportsOpenAIGrammarTools: true,
					supportsGrammarTools: true,
				},
			},
			{
				provider: "claims",
				id: "canonical",
				contextWindow: 64_000,
				reasoning: false,
				compat: { supportsOpenAIGrammarTools: false, supportsGrammarTools: false },
			},
			{ provider: "claims", id: "switches-only", contextWindow: 64_000, reasoning: false },
			{ provider: "claims", id: "bare", contextWindow: 64_000, reasoning: false },
		]);
	});

	it("getAvailableModelsFull returns the full models, without headers", async () => {
		const { client } = await startClient(harness.server, { providers: claimingProvider() });
		const models = await client.getAvailableModelsFull();
		expect(models.map((entry) => entry.id)).toEqual(["strict", "canonical", "switches-only", "bare"]);
		expect(models[0]).toMatchObject({
			id: "strict",
			name: "Model strict",
			api: "openai-completions",
			provider: "claims",
			baseUrl: harness.server.baseUrl("openai-completions"),
			maxTokens: 4096,
			compat: {
				supportsStrictTools: true,
				supportsStrictMode: false,
				supportsOpenAIGrammarTools: true,
				supportsGrammarTools: true,
			},
		});
		expect(models[2]?.compat).toEqual({ supportsStore: false, maxTokensField: "max_tokens" });
		for (const entry of models) expect(entry).not.toHaveProperty("headers");
	});
});
