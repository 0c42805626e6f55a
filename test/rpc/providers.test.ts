import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import { type RpcAgent, testProviders } from "../support/rpc-process.js";
import { type AgentDirs, startAgent, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

const UNSUPPORTED =
	"Configured default model is unavailable or unsupported. Update defaultProvider/defaultModel or use /model.";
const UNSUPPORTED_SETTINGS = { defaultProvider: "nonexistent", defaultModel: "x" };

/** Sends a prompt and returns every record written up to a later get_messages barrier. */
async function blockedPrompt(agent: RpcAgent, id: string): Promise<unknown[]> {
	const start = agent.mark();
	await agent.request({ id, type: "prompt", message: "hello" });
	await agent.request({ id: `${id}-barrier`, type: "get_messages" });
	return agent.since(start).slice(0, -1);
}

function blocked(id: string) {
	return { id, type: "response", command: "prompt", success: false, error: UNSUPPORTED };
}

describe("an unsupported saved default model", () => {
	it("refuses prompts with the configuration message and no events; other commands work", async () => {
		const { agent } = await startAgent(harness.server, { settings: UNSUPPORTED_SETTINGS });
		expect(await blockedPrompt(agent, "p1")).toEqual([blocked("p1")]);
		expect(agent.child.exitCode).toBeNull();
		const state = (await agent.ok({ type: "get_state" })) as Record<string, unknown>;
		expect(state).toMatchObject({ model: null, isStreaming: false, messageCount: 0 });
		const { models } = (await agent.ok({ type: "get_available_models" })) as { models: unknown[] };
		expect(models).toHaveLength(4);
		expect(await agent.ok({ type: "get_available_thinking_levels" })).toEqual({ levels: ["off"] });
		expect(await agent.request({ id: "bad", type: "set_model", provider: "mock", modelId: "nope" })).toMatchObject({
			success: false,
			error: "Model not found: mock/nope",
		});
		expect(await blockedPrompt(agent, "p2")).toEqual([blocked("p2")]);
		// A replacement session resolves its model the same way: still blocked.
		expect(await agent.ok({ type: "new_session" })).toEqual({ cancelled: false });
		expect(await blockedPrompt(agent, "p3")).toEqual([blocked("p3")]);
		expect(harness.server.requests).toHaveLength(0);
	});

	it("is cleared by set_model", async () => {
		const { agent } = await startAgent(harness.server, { settings: UNSUPPORTED_SETTINGS });
		await agent.ok({ type: "set_model", provider: "mockoai", modelId: "mock-model" });
		harness.server.enqueue(textReply("unblocked"));
		await agent.prompt("hello");
		expect(harness.server.requests.map((request) => request.api)).toEqual(["openai-completions"]);
		expect(await agent.ok({ type: "get_last_assistant_text" })).toEqual({ text: "unblocked" });
	});

	it("is cleared by cycle_model returning a different model", async () => {
		const { agent } = await startAgent(harness.server, { settings: UNSUPPORTED_SETTINGS });
		const cycled = (await agent.ok({ type: "cycle_model" })) as { model: { provider: string; id: string } };
		expect(cycled.model).toMatchObject({ provider: "mock", id: "mock-model" });
		await agent.prompt("hello");
		expect(harness.server.requests).toHaveLength(1);
	});

	it("stays when cycle_model answers null", async () => {
		const providers = testProviders(harness.server) as Record<string, Record<string, unknown>>;
		const mock = providers.mock as Record<string, unknown>;
		const single = { mock: { ...mock, models: [(mock.models as unknown[])[0]] } };
		const { agent } = await startAgent(harness.server, { settings: UNSUPPORTED_SETTINGS, providers: single });
		expect(await agent.ok({ type: "cycle_model" })).toBeNull();
		expect(await blockedPrompt(agent, "p4")).toEqual([blocked("p4")]);
	});
});

describe("logout_provider", () => {
	function writeAuth(dirs: AgentDirs, providers: string[]): void {
		const auth = Object.fromEntries(
			providers.map((provider) => [provider, { type: "api_key", key: `key-${provider}` }]),
		);
		writeFileSync(join(dirs.agentDir, "auth.json"), JSON.stringify(auth));
	}
	const readAuth = (dirs: AgentDirs) => JSON.parse(readFileSync(join(dirs.agentDir, "auth.json"), "utf8")) as unknown;
	const settings = { defaultProvider: "mock", defaultModel: "mock-model" };

	it("removes a stored key; with nothing else the provider is unconfigured and its models go", async () => {
		const { agent, dirs } = await startAgent(harness.server, {
			settings,
			prepare: (created) => writeAuth(created, ["anthropic", "mock"]),
		});
		const before = (await agent.ok({ type: "get_available_models" })) as { models: { provider: string }[] };
		expect(before.models.some((candidate) => candidate.provider === "anthropic")).toBe(true);
		const response = await agent.request({ id: "lo", type: "logout_provider", provider: "anthropic" });
		const data = response.data as { models: { provider: string; id: string }[] };
		expect(response).toEqual({
			id: "lo",
			type: "response",
			command: "logout_provider",
			success: true,
			data: { provider: "anthropic", authStatus: { configured: false }, models: data.models },
		});
		expect(data.models.map((candidate) => `${candidate.provider}/${candidate.id}`)).toEqual([
			"mock/mock-model",
			"mock/mock-reasoner",
			"mockoai/mock-model",
			"mockoai/mock-reasoner",
		]);
		expect(readAuth(dirs)).toEqual({ mock: { type: "api_key", key: "key-mock" } });
		const after = (await agent.ok({ type: "get_available_models" })) as { models: unknown[] };
		expect(after.models).toEqual(data.models);
	});

	it("reports the environment variable that still authenticates the provider", async () => {
		const { agent, dirs } = await startAgent(harness.server, {
			settings,
			env: { ANTHROPIC_API_KEY: "env-key" },
			prepare: (created) => writeAuth(created, ["anthropic"]),
		});
		const data = (await agent.ok({ type: "logout_provider", provider: "anthropic" })) as Record<string, unknown>;
		expect(data.authStatus).toEqual({ configured: true, source: "environment", label: "ANTHROPIC_API_KEY" });
		expect((data.models as { provider: string }[]).some((candidate) => candidate.provider === "anthropic")).toBe(true);
		expect(readAuth(dirs)).toEqual({});
		expect(JSON.stringify(agent.records)).not.toContain("env-key");
	});

	it("reports models.json authentication, which it leaves alone", async () => {
		const { agent, dirs } = await startAgent(harness.server, {
			settings,
			prepare: (created) => writeAuth(created, ["mock"]),
		});
		const data = (await agent.ok({ type: "logout_provider", provider: "mock" })) as Record<string, unknown>;
		expect(data).toMatchObject({ provider: "mock", authStatus: { configured: true, source: "models.json" } });
		expect((data.models as unknown[]).length).toBe(4);
		expect(readAuth(dirs)).toEqual({});
		expect(JSON.stringify(agent.records)).not.toContain("key-mock");
		await agent.prompt("still works");
		expect(harness.server.requests[0]?.headers["x-api-key"]).toBe("test-key");
	});
});
