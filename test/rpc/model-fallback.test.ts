import { describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import { startAgent, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

const MODEL = { id: "mock-model", name: "Mock Model", reasoning: false, input: ["text"], maxTokens: 4096 };

/** The primary (anthropic wire, small window) and a fallback tier (openai wire, larger window). */
function tiers(primaryWindow = 200_000) {
	const server = harness.server;
	return {
		mock: {
			baseUrl: server.baseUrl("anthropic-messages"),
			api: "anthropic-messages",
			apiKey: "test-key",
			models: [{ ...MODEL, contextWindow: primaryWindow }],
		},
		mockoai: {
			baseUrl: server.baseUrl("openai-completions"),
			api: "openai-completions",
			apiKey: "test-key",
			models: [{ ...MODEL, contextWindow: 400_000 }],
		},
	};
}

const SETTINGS = {
	defaultProvider: "mock",
	defaultModel: "mock-model",
	fallbackModels: ["mockoai/mock-model"],
	retry: { enabled: true, maxRetries: 1, baseDelayMs: 1 },
};

describe("model fallback", () => {
	it("continues on the next tier after a 529 storm outlasts the retries", async () => {
		const { agent } = await startAgent(harness.server, { providers: tiers(), settings: SETTINGS, sessions: true });
		harness.server.enqueue({ status: 529 }, { status: 529 }, textReply("answered by the fallback"));
		const { start } = await agent.prompt("hello");
		expect(agent.since(start, "model_fallback")).toEqual([
			{ type: "model_fallback", from: "mock/mock-model", to: "mockoai/mock-model", reason: "overloaded" },
		]);
		expect(harness.server.requests.map((request) => request.api)).toEqual([
			"anthropic-messages",
			"anthropic-messages",
			"openai-completions",
		]);
		expect(await agent.ok({ type: "get_last_assistant_text" })).toEqual({ text: "answered by the fallback" });
		const state = (await agent.ok({ type: "get_state" })) as { model: { provider: string } };
		expect(state.model.provider).toBe("mockoai");
		const { entries } = (await agent.ok({ type: "get_entries" })) as { entries: Record<string, unknown>[] };
		expect(entries.filter((entry) => entry.type === "model_change")).toMatchObject([
			{ provider: "mockoai", modelId: "mock-model" },
		]);
		expect(agent.since(start, "state_changed").some((record) => "model" in (record.changes as object))).toBe(true);

		// The fallback is the session's model, not the saved default: a new session starts on the
		// default again, and reopening this one resumes on the fallback.
		const { sessionFile } = state as { sessionFile?: string };
		await agent.ok({ type: "new_session" });
		const fresh = (await agent.ok({ type: "get_state" })) as { model: { provider: string } };
		expect(fresh.model.provider).toBe("mock");
		await agent.ok({ type: "switch_session", sessionPath: sessionFile });
		const reopened = (await agent.ok({ type: "get_state" })) as { model: { provider: string } };
		expect(reopened.model.provider).toBe("mockoai");
	});

	it("advances a tier when compaction cannot make an overflowing context fit", async () => {
		const { agent } = await startAgent(harness.server, { providers: tiers(50_000), settings: SETTINGS });
		const overflow = { status: 400, errorMessage: "prompt is too long: 60000 tokens > 50000 maximum" };
		harness.server.enqueue(overflow, textReply("the bigger window took it"));
		const { start } = await agent.prompt("a prompt that does not fit");
		const ends = agent.since(start, "compaction_end");
		expect(ends).toMatchObject([{ reason: "overflow", unresolvedOverflow: true }]);
		expect(agent.since(start, "model_fallback")).toEqual([
			{ type: "model_fallback", from: "mock/mock-model", to: "mockoai/mock-model", reason: "context_overflow" },
		]);
		expect(await agent.ok({ type: "get_last_assistant_text" })).toEqual({ text: "the bigger window took it" });
	});

	/** The messages of the request the fallback model received (OpenAI chat completions). */
	function fallbackMessages(): { role: string; content: unknown }[] {
		const request = harness.server.requests.filter((each) => each.api === "openai-completions").at(-1);
		const body = request?.body as { messages?: { role: string; content: unknown }[] } | undefined;
		return body?.messages ?? [];
	}

	it.each([
		["reported by the provider", { status: 400, errorMessage: "prompt is too long: 60000 tokens > 50000 maximum" }],
		[
			"silent: a length stop with no output and a full window",
			textReply("", { stopReason: "length", usage: { input: 49_900, output: 0 } }),
		],
		[
			"silent: a length stop in a full window, cut off after a few words its usage does not count",
			textReply("The answer beg", { stopReason: "length", usage: { input: 49_900, output: 0 } }),
		],
	])(
		"after an overflow (%s) compaction cannot resolve, the fallback answers the prompt itself",
		async (_kind, overflow) => {
			const { agent } = await startAgent(harness.server, { providers: tiers(50_000), settings: SETTINGS });
			harness.server.enqueue(overflow, textReply("the bigger window took it"));
			const { start } = await agent.prompt("a prompt that does not fit");
			expect(agent.since(start, "model_fallback")).toHaveLength(1);
			// The request ends with the prompt, not with the primary's cut-off reply to continue.
			const messages = fallbackMessages().filter((message) => message.role !== "system");
			expect(messages.map((message) => message.role)).toEqual(["user"]);
			expect(JSON.stringify(messages[0]?.content)).toContain("a prompt that does not fit");
		},
	);

	it("after compaction ran and the context still overflows, the fallback answers the prompt itself", async () => {
		const { agent } = await startAgent(harness.server, { providers: tiers(50_000), settings: SETTINGS });
		const long = Array.from({ length: 30 }, (_, index) => `line ${index} of an earlier answer`).join("\n");
		harness.server.enqueue(textReply(long), textReply(long));
		await agent.prompt("first");
		await agent.prompt("second");
		const overflow = { status: 400, errorMessage: "prompt is too long: 60000 tokens > 50000 maximum" };
		// The prompt overflows, compaction deletes some lines, the prompt overflows again: unresolved.
		harness.server.enqueue(overflow, textReply("1,10\n"), overflow, textReply("the bigger window took it"));
		const { start } = await agent.prompt("a prompt that does not fit");
		expect(agent.since(start, "compaction_end")).toMatchObject([
			{ reason: "overflow", aborted: false, willRetry: true },
			{ reason: "overflow", unresolvedOverflow: true },
		]);
		expect(agent.since(start, "model_fallback")).toHaveLength(1);
		const messages = fallbackMessages().filter((message) => message.role !== "system");
		expect(messages.at(-1)?.role).toBe("user");
		expect(JSON.stringify(messages.at(-1)?.content)).toContain("a prompt that does not fit");
	});

	it("never falls back on an authentication error", async () => {
		const { agent } = await startAgent(harness.server, { providers: tiers(), settings: SETTINGS });
		harness.server.enqueue({ status: 401 });
		const { start } = await agent.prompt("hello");
		expect(agent.since(start, "model_fallback")).toEqual([]);
		expect(harness.server.requests).toHaveLength(1);
		const state = (await agent.ok({ type: "get_state" })) as { model: { provider: string } };
		expect(state.model.provider).toBe("mock");
	});

	it("takes its tiers from --fallback-models, and stops when no tier is left", async () => {
		const { agent } = await startAgent(harness.server, {
			providers: tiers(),
			settings: { ...SETTINGS, fallbackModels: [] },
			args: ["--fallback-models", "mockoai/*"],
		});
		harness.server.enqueue({ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 });
		const { start } = await agent.prompt("hello");
		expect(agent.since(start, "model_fallback")).toMatchObject([{ to: "mockoai/mock-model", reason: "server_error" }]);
		expect(harness.server.requests).toHaveLength(4);
		const last = agent.since(start, "message_end").at(-1)?.message as { stopReason: string };
		expect(last.stopReason).toBe("error");
	});
});
