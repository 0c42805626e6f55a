/**
 * Provider faults from the loopback server, for both wire protocols: a connection reset mid-stream,
 * a stalled stream (idle timeout), a malformed SSE frame, and HTTP 429/529/500/401. Each run must
 * end with agent_end and agent_settled, retrying exactly the transient faults.
 */
import { describe, expect, it, vi } from "vitest";
import { registerProvider, streamModel } from "../../src/llm/registry.js";
import type { Context } from "../../src/llm/types.js";
import { startAgent, useRpcHarness } from "../rpc/helpers.js";
import { type ScriptedReply, textReply } from "../support/llm-server.js";
import { testModel } from "../support/models.js";
import type { RpcAgent } from "../support/rpc-process.js";
import { assistantEnd, expectWellFormedOutput } from "./helpers.js";

const harness = useRpcHarness();

const IDLE_TIMEOUT_MS = 500;
const SETTINGS = { retry: { enabled: true, maxRetries: 2, baseDelayMs: 20 }, streamIdleTimeoutMs: IDLE_TIMEOUT_MS };
const STREAM = { blocks: [{ type: "text" as const, text: "partial answer text", chunks: 6 }] };

type Provider = "mock" | "mockoai";

interface FaultCase {
	name: string;
	reply: ScriptedReply;
	/** The failed reply's errorMessage per provider, and whether the agent retries it. */
	outcome: Record<Provider, { error: string | RegExp; transient: boolean }>;
	/** The delay before the retry when it is not the backoff's 20 ms. */
	delayMs?: number;
}

const both = (error: string, transient: boolean) => ({ mock: { error, transient }, mockoai: { error, transient } });
const anthropicError = (status: number, type: string, message: string) =>
	`${status} ${JSON.stringify({ type: "error", error: { type, message } })}`;

const CASES: FaultCase[] = [
	{
		name: "connection reset mid-stream",
		reply: { ...STREAM, fault: "reset", faultAfterFrames: 3 },
		outcome: both("fetch failed (ECONNRESET)", true),
	},
	{
		name: "stalled stream",
		reply: { ...STREAM, fault: "stall", faultAfterFrames: 3 },
		outcome: both(`Provider stream idle for ${IDLE_TIMEOUT_MS} ms (idle timeout)`, true),
	},
	{
		name: "malformed SSE frame",
		reply: { ...STREAM, fault: "malformed", faultAfterFrames: 3 },
		outcome: {
			// The Anthropic SDK skips a data line without an event name, so the stream just ends early.
			mock: { error: "Provider stream ended without a final message", transient: true },
			// The OpenAI SDK fails on the JSON; a parse error is not worth a retry.
			mockoai: { error: /in JSON at position 1/, transient: false },
		},
	},
	{
		// The server's retry-after (0.3 s) wins over the shorter backoff (the SDKs' own retries are off).
		name: "429 with retry-after",
		reply: { status: 429, headers: { "retry-after": "0.3" } },
		delayMs: 300,
		outcome: {
			mock: { error: anthropicError(429, "rate_limit_error", "Rate limit exceeded"), transient: true },
			mockoai: { error: "429 Rate limit exceeded", transient: true },
		},
	},
	{
		name: "529 overloaded",
		reply: { status: 529 },
		outcome: {
			mock: { error: anthropicError(529, "overloaded_error", "Overloaded"), transient: true },
			mockoai: { error: "529 Overloaded", transient: true },
		},
	},
	{
		name: "500",
		reply: { status: 500 },
		outcome: {
			mock: { error: anthropicError(500, "api_error", "Internal server error"), transient: true },
			mockoai: { error: "500 Internal server error", transient: true },
		},
	},
	{
		name: "401",
		reply: { status: 401 },
		outcome: {
			mock: { error: anthropicError(401, "authentication_error", "invalid x-api-key"), transient: false },
			mockoai: { error: "401 invalid x-api-key", transient: false },
		},
	},
];

/** The run's records without message_update, as short labels. */
function outline(agent: RpcAgent, start: number): string[] {
	return agent
		.since(start)
		.filter((record) => record.type !== "message_update")
		.map((record) => {
			const end = assistantEnd(record);
			if (end) return `message_end assistant ${end.stopReason}`;
			if (record.type === "message_start" || record.type === "message_end") {
				return `${record.type} ${(record.message as { role: string }).role}`;
			}
			return record.type;
		});
}

const RUN_START = ["response", "agent_start", "turn_start", "message_start user", "message_end user"];
const RUN_END = ["turn_end", "agent_end", "agent_settled"];

async function startProvider(provider: Provider): Promise<RpcAgent> {
	const { agent } = await startAgent(harness.server, {
		settings: SETTINGS,
		args: ["--provider", provider, "--model", "mock-model"],
	});
	// Loads the provider's SDK first: its import can take longer than the idle timeout (see below).
	await agent.prompt("warm up");
	harness.server.reset();
	return agent;
}

describe.each(["mock", "mockoai"] as const)("provider faults through %s", (provider) => {
	it("reports each fault with the right events, retrying only transient ones, and always settles", async () => {
		const agent = await startProvider(provider);
		for (const fault of CASES) {
			const { error, transient } = fault.outcome[provider];
			const recovered = `recovered after ${fault.name}`;
			const requestsBefore = harness.server.requests.length;
			harness.server.enqueue(fault.reply, textReply(recovered));
			const { start } = await agent.prompt(fault.name, {}, 15_000);
			const failed = agent
				.since(start)
				.map(assistantEnd)
				.find((end) => end?.stopReason === "error");
			expect(failed?.errorMessage, fault.name).toMatch(typeof error === "string" ? exact(error) : error);
			const errorMessage = failed?.errorMessage;
			const retries = agent.since(start).filter((record) => record.type.startsWith("auto_retry"));
			if (transient) {
				expect(outline(agent, start), fault.name).toEqual([
					...RUN_START,
					"message_start assistant",
					"message_end assistant error",
					"auto_retry_start",
					"message_start assistant",
					"message_end assistant stop",
					"auto_retry_end",
					...RUN_END,
				]);
				expect(retries, fault.name).toEqual([
					{ type: "auto_retry_start", attempt: 1, maxAttempts: 2, delayMs: fault.delayMs ?? 20, errorMessage },
					{ type: "auto_retry_end", success: true, attempt: 1 },
				]);
				expect(await agent.ok({ type: "get_last_assistant_text" }), fault.name).toEqual({ text: recovered });
				expect(harness.server.requests.length - requestsBefore, fault.name).toBe(2);
			} else {
				expect(outline(agent, start), fault.name).toEqual([
					...RUN_START,
					"message_start assistant",
					"message_end assistant error",
					...RUN_END,
				]);
				expect(harness.server.requests.length - requestsBefore, fault.name).toBe(1);
				// The unused recovery reply must not answer the next case.
				harness.server.reset();
			}
			if (fault.reply.fault === "stall") {
				// The agent gave up on the request rather than leaving the connection open.
				await vi.waitFor(() => expect(harness.server.requests[requestsBefore]?.clientDisconnected).toBe(true));
			}
			expect(harness.server.pending, fault.name).toBe(0);
		}
		expectWellFormedOutput(agent);
	}, 60_000);

	it("gives up after maxRetries transient faults and reports the last error", async () => {
		const agent = await startProvider(provider);
		const reset: ScriptedReply = { ...STREAM, fault: "reset", faultAfterFrames: 2 };
		harness.server.enqueue(reset, reset, reset, textReply("never requested"));
		const { start } = await agent.prompt("keeps failing", {}, 15_000);
		expect(agent.since(start).filter((record) => record.type.startsWith("auto_retry"))).toEqual([
			{ type: "auto_retry_start", attempt: 1, maxAttempts: 2, delayMs: 20, errorMessage: "fetch failed (ECONNRESET)" },
			{ type: "auto_retry_start", attempt: 2, maxAttempts: 2, delayMs: 40, errorMessage: "fetch failed (ECONNRESET)" },
			{ type: "auto_retry_end", success: false, attempt: 2, finalError: "fetch failed (ECONNRESET)" },
		]);
		expect(outline(agent, start).slice(-3)).toEqual(RUN_END);
		expect(harness.server.requests).toHaveLength(3);
		expect(harness.server.pending).toBe(1);
	}, 30_000);
});

function exact(text: string): RegExp {
	return new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);
}

const hello: Context = { messages: [{ role: "user", content: "hello", timestamp: 0 }] };

describe("stream idle timeout", () => {
	// Importing a provider's SDK (hundreds of ms in a fresh process) is not an idle stream.
	it("does not count loading the provider module as stream idleness", async () => {
		registerProvider("openai-responses", async () => {
			await new Promise((resolve) => setTimeout(resolve, 300));
			return {
				async streamReply(_model, _context, _options, out) {
					out.start();
					const index = out.startText();
					out.appendText(index, "loaded slowly");
					out.endBlock(index);
					out.finish("stop");
				},
			};
		});
		const message = await streamModel(testModel(harness.server, "openai-responses"), hello, {
			idleTimeoutMs: 100,
		}).result();
		expect({ stopReason: message.stopReason, errorMessage: message.errorMessage }).toEqual({
			stopReason: "stop",
			errorMessage: undefined,
		});
	});
});
