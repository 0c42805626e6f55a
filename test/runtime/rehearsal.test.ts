import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/types.js";
import type { Api, Model } from "../../src/llm/types.js";
import { rehearseToolLoop } from "../../src/runtime/rehearsal.js";

// The models point at a loopback server that counts requests: a rehearsal must send none.
let server: Server;
let requests = 0;
let baseUrl = "";

beforeAll(async () => {
	server = createServer((_request, response) => {
		requests++;
		response.writeHead(500).end();
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

function modelFor(api: Api): Model {
	return {
		id: "rehearsal-model",
		name: "Rehearsal model",
		api,
		provider: "local",
		baseUrl: api === "openai-completions" ? `${baseUrl}/v1` : baseUrl,
		reasoning: false,
		input: ["text"],
		contextWindow: 100_000,
		maxTokens: 4096,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
	};
}

describe("the idle preload's rehearsal", () => {
	for (const api of ["anthropic-messages", "openai-completions"] as const) {
		it(`runs one tool loop through the agent loop and the ${api} provider without sending anything`, async () => {
			const events: AgentEvent[] = [];
			await expect(rehearseToolLoop(modelFor(api), "off", (event) => void events.push(event))).resolves.toBe(true);
			const types = events.map((event) => event.type);
			expect(types.filter((type) => type === "turn_start")).toHaveLength(2);
			expect(types.at(-1)).toBe("agent_end");
			const ends = events.filter((event) => event.type === "tool_execution_end");
			expect(ends).toMatchObject([{ toolName: "warm", isError: false, result: { content: [{ text: "ok" }] } }]);
			const replies = events.flatMap((event) => (event.type === "message_end" ? [event.message] : []));
			expect(replies.filter((message) => message.role === "assistant")).toMatchObject([
				{ stopReason: "toolUse" },
				{ stopReason: "stop", content: [{ type: "text", text: "ok" }] },
			]);
			expect(requests).toBe(0);
		});
	}

	it("is skipped for a provider without canned replies", async () => {
		await expect(rehearseToolLoop(modelFor("openai-responses"), "off")).resolves.toBe(false);
		await expect(rehearseToolLoop(modelFor("google-generative-ai"), "off")).resolves.toBe(false);
		expect(requests).toBe(0);
	});
});
