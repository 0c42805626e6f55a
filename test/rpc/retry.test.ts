import { describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import { indexOf, startAgent, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

const OVERLOADED = '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';

describe("automatic retry", () => {
	it("retries transient errors and reports each attempt", async () => {
		const { agent } = await startAgent(harness.server);
		harness.server.enqueue({ status: 529 }, { status: 529 }, textReply("finally"));
		const { start } = await agent.prompt("try");
		expect(agent.since(start).filter((record) => record.type.startsWith("auto_retry"))).toEqual([
			{ type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 50, errorMessage: OVERLOADED },
			{ type: "auto_retry_start", attempt: 2, maxAttempts: 3, delayMs: 100, errorMessage: OVERLOADED },
			{ type: "auto_retry_end", success: true, attempt: 2 },
		]);
		expect(harness.server.requests).toHaveLength(3);
		const retryEnd = indexOf(agent, (record) => record.type === "auto_retry_end", start);
		const finalEnd = indexOf(
			agent,
			(record) => record.type === "message_end" && (record.message as { stopReason: string }).stopReason === "stop",
			start,
		);
		expect(finalEnd).toBeLessThan(retryEnd);
		expect(agent.since(start, "agent_start")).toHaveLength(1);
		expect(agent.since(start, "agent_end")).toHaveLength(1);
		expect(await agent.ok({ type: "get_last_assistant_text" })).toEqual({ text: "finally" });
		const { messages } = (await agent.ok({ type: "get_messages" })) as { messages: { role: string }[] };
		expect(messages.map((message) => message.role)).toEqual(["user", "assistant"]);
	});

	it("gives up after the configured retries", async () => {
		const { agent } = await startAgent(harness.server, {
			settings: { retry: { enabled: true, maxRetries: 1, baseDelayMs: 10 } },
		});
		harness.server.enqueue({ status: 529 }, { status: 529 });
		const { start } = await agent.prompt("try");
		expect(agent.since(start).filter((record) => record.type.startsWith("auto_retry"))).toEqual([
			{ type: "auto_retry_start", attempt: 1, maxAttempts: 1, delayMs: 10, errorMessage: OVERLOADED },
			{ type: "auto_retry_end", success: false, attempt: 1, finalError: OVERLOADED },
		]);
		expect(harness.server.requests).toHaveLength(2);
	});

	it("does not retry once set_auto_retry is false", async () => {
		const { agent } = await startAgent(harness.server);
		expect(await agent.request({ id: "off", type: "set_auto_retry", enabled: false })).toEqual({
			id: "off",
			type: "response",
			command: "set_auto_retry",
			success: true,
		});
		harness.server.enqueue({ status: 529 }, textReply("unused"));
		const { start } = await agent.prompt("try");
		expect(agent.since(start).filter((record) => record.type.startsWith("auto_retry"))).toEqual([]);
		expect(agent.since(start, "message_end").at(-1)?.message).toMatchObject({
			stopReason: "error",
			errorMessage: OVERLOADED,
		});
		expect(harness.server.requests).toHaveLength(1);

		await agent.ok({ type: "set_auto_retry", enabled: true });
		harness.server.reset();
		harness.server.enqueue({ status: 529 }, textReply("back on"));
		const again = await agent.prompt("again");
		expect(agent.since(again.start, "auto_retry_end")).toEqual([{ type: "auto_retry_end", success: true, attempt: 1 }]);
	});

	it("abort_retry cancels a long retry delay", async () => {
		const { agent } = await startAgent(harness.server, {
			settings: { retry: { enabled: true, maxRetries: 3, baseDelayMs: 600_000 } },
		});
		harness.server.enqueue({ status: 529 });
		const start = agent.mark();
		await agent.request({ type: "prompt", message: "try" });
		expect(await agent.waitForEvent("auto_retry_start", () => true, start)).toEqual({
			type: "auto_retry_start",
			attempt: 1,
			maxAttempts: 3,
			delayMs: 600_000,
			errorMessage: OVERLOADED,
		});
		expect(await agent.request({ id: "ar", type: "abort_retry" })).toEqual({
			id: "ar",
			type: "response",
			command: "abort_retry",
			success: true,
		});
		expect(await agent.waitForEvent("auto_retry_end", () => true, start)).toEqual({
			type: "auto_retry_end",
			success: false,
			attempt: 1,
			finalError: "Retry cancelled",
		});
		await agent.waitForEvent("agent_settled", () => true, start);
		expect(agent.since(start, "message_end").at(-1)?.message).toMatchObject({ stopReason: "error" });
		expect(harness.server.requests).toHaveLength(1);
		const state = (await agent.ok({ type: "get_state" })) as { isStreaming: boolean };
		expect(state.isStreaming).toBe(false);
	});

	it("abort during a retry delay ends the run as aborted", async () => {
		const { agent } = await startAgent(harness.server, {
			settings: { retry: { enabled: true, maxRetries: 3, baseDelayMs: 600_000 } },
		});
		harness.server.enqueue({ status: 529 });
		const start = agent.mark();
		await agent.request({ type: "prompt", message: "try" });
		await agent.waitForEvent("auto_retry_start", () => true, start);
		const abort = await agent.request({ id: "ab", type: "abort" });
		expect(abort).toEqual({ id: "ab", type: "response", command: "abort", success: true });
		const agentEnd = agent.records.findIndex((record, index) => index >= start && record.type === "agent_end");
		expect(agentEnd).toBeGreaterThan(-1);
		expect(agentEnd).toBeLessThan(agent.records.indexOf(abort));
		expect(agent.since(start, "auto_retry_end")).toEqual([
			{ type: "auto_retry_end", success: false, attempt: 1, finalError: expect.any(String) },
		]);
		expect(agent.since(start, "message_end").at(-1)?.message).toMatchObject({ stopReason: "aborted" });
		expect(harness.server.requests).toHaveLength(1);
	});

	it("abort_retry with no retry in progress succeeds", async () => {
		const { agent } = await startAgent(harness.server);
		expect(await agent.request({ id: "idle", type: "abort_retry" })).toEqual({
			id: "idle",
			type: "response",
			command: "abort_retry",
			success: true,
		});
	});
});
