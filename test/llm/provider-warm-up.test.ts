import { describe, expect, it } from "vitest";
import { preloadHttpClient, warmUpProvider } from "../../src/llm/registry.js";

// The warm-up clients point at 127.0.0.1:9 (discard): a request that reached the network would
// fail to connect, so a warm-up that resolves was answered by its canned reply.
describe("provider warm-up", () => {
	for (const api of ["anthropic-messages", "openai-completions"]) {
		it(`runs a canned streamed reply through the ${api} SDK without the network`, async () => {
			await expect(warmUpProvider(api)).resolves.toBeUndefined();
		});
	}

	it("is a no-op for a protocol without one, and fails for an unknown api", async () => {
		await expect(warmUpProvider("google-generative-ai")).resolves.toBeUndefined();
		await expect(warmUpProvider("no-such-api")).rejects.toThrow('No provider for api "no-such-api"');
	});

	it("runs one loopback request through the HTTP client of each api's SDK", async () => {
		await expect(preloadHttpClient("anthropic-messages")).resolves.toBeUndefined();
		await expect(preloadHttpClient("google-generative-ai")).resolves.toBeUndefined();
		await expect(preloadHttpClient()).resolves.toBeUndefined();
	});
});
