import type { Api, Model } from "../../src/llm/types.js";
import type { LlmServer } from "./llm-server.js";

/** A model pointed at the loopback server, with round prices so cost assertions are easy. */
export function testModel(server: LlmServer, api: Api, overrides: Partial<Model> = {}): Model {
	return {
		id: overrides.id ?? `test-${api}`,
		name: `Test ${api}`,
		api,
		provider: `test-${api}`,
		baseUrl: server.baseUrl(api),
		reasoning: false,
		input: ["text", "image"],
		contextWindow: 200_000,
		maxTokens: 8192,
		cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
		...overrides,
	};
}

/** A 1x1 transparent PNG, base64. */
export const TINY_PNG =
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
