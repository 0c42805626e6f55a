import { describe, expect, it } from "vitest";
import type { LlmServer } from "../support/llm-server.js";
import { testProviders } from "../support/rpc-process.js";
import { anthropicBody, startAgent, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

/** A Model object exactly as the protocol shows it (models.json sets no cost and no map). */
function model(server: LlmServer, provider: "mock" | "mockoai", id: "mock-model" | "mock-reasoner") {
	const api = provider === "mock" ? "anthropic-messages" : "openai-completions";
	return {
		id,
		name: id === "mock-model" ? "Mock Model" : "Mock Reasoner",
		api,
		provider,
		baseUrl: server.baseUrl(api),
		reasoning: id === "mock-reasoner",
		input: ["text", "image"],
		contextWindow: 200_000,
		maxTokens: 8192,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
	};
}

/** The standard providers, with secret headers on `mock` (they must never reach a client). */
function providersWithHeaders(server: LlmServer): Record<string, unknown> {
	const providers = testProviders(server) as Record<string, Record<string, unknown>>;
	return { ...providers, mock: { ...providers.mock, headers: { "x-secret": "do-not-show" } } };
}

describe("state and models", () => {
	it("get_state reports the defaults", async () => {
		const { agent } = await startAgent(harness.server);
		const state = (await agent.ok({ type: "get_state" })) as Record<string, unknown>;
		expect(state).toEqual({
			model: model(harness.server, "mock", "mock-model"),
			thinkingLevel: "off",
			isStreaming: false,
			isCompacting: false,
			steeringMode: "one-at-a-time",
			followUpMode: "one-at-a-time",
			sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
			autoCompactionEnabled: true,
			messageCount: 0,
			pendingMessageCount: 0,
			queuedMessagesPaused: false,
			approvalMode: "auto",
			sandbox: { mode: "off", network: "off", available: expect.any(Boolean), mechanism: "bubblewrap" },
			tools: ["read", "bash", "edit", "write", "grep", "find", "ls"],
		});
	});

	it("get_available_models lists full models without headers", async () => {
		const { agent } = await startAgent(harness.server, { providers: providersWithHeaders(harness.server) });
		const response = await agent.request({ id: "models", type: "get_available_models" });
		expect(response).toEqual({
			id: "models",
			type: "response",
			command: "get_available_models",
			success: true,
			data: {
				models: [
					model(harness.server, "mock", "mock-model"),
					model(harness.server, "mock", "mock-reasoner"),
					model(harness.server, "mockoai", "mock-model"),
					model(harness.server, "mockoai", "mock-reasoner"),
				],
			},
		});
		expect(JSON.stringify(agent.records)).not.toContain("do-not-show");
	});

	it("set_model switches, answers the model, and names an unknown one", async () => {
		const { agent } = await startAgent(harness.server, { providers: providersWithHeaders(harness.server) });
		expect(await agent.request({ id: "sm", type: "set_model", provider: "mockoai", modelId: "mock-reasoner" })).toEqual(
			{
				id: "sm",
				type: "response",
				command: "set_model",
				success: true,
				data: model(harness.server, "mockoai", "mock-reasoner"),
			},
		);
		const state = (await agent.ok({ type: "get_state" })) as { model: unknown };
		expect(state.model).toEqual(model(harness.server, "mockoai", "mock-reasoner"));
		expect(await agent.request({ id: "bad", type: "set_model", provider: "mock", modelId: "nope" })).toEqual({
			id: "bad",
			type: "response",
			command: "set_model",
			success: false,
			error: "Model not found: mock/nope",
		});
		const headers = await agent.ok({ type: "set_model", provider: "mock", modelId: "mock-model" });
		expect(headers).toEqual(model(harness.server, "mock", "mock-model"));
		expect(JSON.stringify(agent.records)).not.toContain("do-not-show");
	});

	it("cycle_model goes forward and backward, wrapping around", async () => {
		const { agent } = await startAgent(harness.server);
		const cycle = async (direction?: string) =>
			(
				(await agent.ok(direction ? { type: "cycle_model", direction } : { type: "cycle_model" })) as {
					model: { provider: string; id: string };
				}
			).model;
		expect(await agent.request({ id: "c", type: "cycle_model" })).toEqual({
			id: "c",
			type: "response",
			command: "cycle_model",
			success: true,
			// The default level (medium) comes back on the first model that can reason.
			data: { model: model(harness.server, "mock", "mock-reasoner"), thinkingLevel: "medium", isScoped: false },
		});
		expect(await cycle("forward")).toMatchObject({ provider: "mockoai", id: "mock-model" });
		expect(await cycle("backward")).toMatchObject({ provider: "mock", id: "mock-reasoner" });
		expect(await cycle("backward")).toMatchObject({ provider: "mock", id: "mock-model" });
		expect(await cycle("backward")).toMatchObject({ provider: "mockoai", id: "mock-reasoner" });
		expect(await cycle()).toMatchObject({ provider: "mock", id: "mock-model" });
	});

	it("cycle_model answers null with a single model", async () => {
		const providers = testProviders(harness.server) as Record<string, Record<string, unknown>>;
		const mock = providers.mock as Record<string, unknown>;
		const single = { mock: { ...mock, models: [(mock.models as unknown[])[0]] } };
		const { agent } = await startAgent(harness.server, { providers: single });
		expect(await agent.request({ id: "one", type: "cycle_model" })).toEqual({
			id: "one",
			type: "response",
			command: "cycle_model",
			success: true,
			data: null,
		});
		const state = (await agent.ok({ type: "get_state" })) as { model: { id: string } };
		expect(state.model.id).toBe("mock-model");
	});

	it("set_auto_compaction is reflected in get_state", async () => {
		const { agent } = await startAgent(harness.server);
		expect(await agent.request({ id: "ac", type: "set_auto_compaction", enabled: false })).toEqual({
			id: "ac",
			type: "response",
			command: "set_auto_compaction",
			success: true,
		});
		expect(await agent.ok({ type: "get_state" })).toMatchObject({ autoCompactionEnabled: false });
		await agent.ok({ type: "set_auto_compaction", enabled: true });
		expect(await agent.ok({ type: "get_state" })).toMatchObject({ autoCompactionEnabled: true });
	});
});

// How levels follow the model, clamp and cycle is checked in process: test/runtime/thinking-levels.test.ts.
describe("thinking levels", () => {
	it("a model that does not reason stays off", async () => {
		const { agent } = await startAgent(harness.server);
		expect(await agent.request({ id: "t", type: "set_thinking_level", level: "high" })).toEqual({
			id: "t",
			type: "response",
			command: "set_thinking_level",
			success: true,
		});
		expect(await agent.ok({ type: "get_state" })).toMatchObject({ thinkingLevel: "off" });
		expect(await agent.request({ id: "cy", type: "cycle_thinking_level" })).toEqual({
			id: "cy",
			type: "response",
			command: "cycle_thinking_level",
			success: true,
			data: null,
		});
		expect(await agent.ok({ type: "get_available_thinking_levels" })).toEqual({ levels: ["off"] });
		expect(await agent.request({ id: "bad", type: "set_thinking_level", level: "huge" })).toEqual({
			id: "bad",
			type: "response",
			command: "set_thinking_level",
			success: false,
			error:
				'Invalid "set_thinking_level" command: field "level" must be one of "off", "minimal", "low", "medium", "high", "xhigh", "max"',
		});
	});

	it("the level reaches the model request", async () => {
		const { agent } = await startAgent(harness.server);
		await agent.ok({ type: "set_model", provider: "mock", modelId: "mock-reasoner" });
		await agent.ok({ type: "set_thinking_level", level: "low" });
		await agent.prompt("think a little");
		await agent.ok({ type: "set_thinking_level", level: "off" });
		await agent.prompt("do not think");
		const [low, off] = harness.server.requests.map((request) => anthropicBody(request));
		expect(low).toMatchObject({
			model: "mock-reasoner",
			max_tokens: 8192,
			thinking: { type: "enabled", budget_tokens: 2048 },
		});
		expect(off).toMatchObject({ model: "mock-reasoner", thinking: { type: "disabled" } });
	});
});
