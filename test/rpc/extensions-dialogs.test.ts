import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textReply, toolReply } from "../support/llm-server.js";
import type { RpcAgent, RpcRecord } from "../support/rpc-process.js";
import { answer, nextDialog, startWithExtensions, toolEnds, UUID, uiFrames } from "./extensions-helpers.js";
import { isResponseTo, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

const start = () => startWithExtensions(harness.server, { fixtures: ["dialogs.ts"] });

function notified(agent: RpcAgent, message: string, from: number): Promise<RpcRecord> {
	return agent.waitForEvent(
		"extension_ui_request",
		(record) => record.method === "notify" && record.message === message,
		from,
	);
}

/** A run whose bash call waits on the tool_call confirm; resolves with the dialog. */
async function toolWaitingOnConfirm(agent: RpcAgent): Promise<{ run: number; dialog: RpcRecord }> {
	harness.server.enqueue(toolReply("bash", { command: "touch ran.txt" }), textReply("done"));
	const run = agent.mark();
	await agent.ok({ type: "prompt", message: "touch it" });
	const dialog = await nextDialog(agent, "confirm", run);
	expect(dialog).toEqual({
		type: "extension_ui_request",
		id: expect.stringMatching(UUID),
		method: "confirm",
		title: "Run tool?",
		message: "bash",
	});
	return { run, dialog };
}

describe("several dialogs at once", () => {
	it("answers in reverse order reach the right dialog", async () => {
		const { agent } = await start();
		const from = agent.mark();
		agent.send({ id: "pair", type: "prompt", message: "/pair" });
		const first = await nextDialog(agent, "input", from);
		const second = await nextDialog(agent, "input", agent.records.indexOf(first) + 1);
		expect(uiFrames(agent, from)).toEqual([
			{ type: "extension_ui_request", method: "input", title: "First", placeholder: "one?" },
			{ type: "extension_ui_request", method: "input", title: "Second", placeholder: "two?" },
		]);
		answer(agent, second, { value: "two" });
		answer(agent, first, { value: "one" });
		const notify = await notified(agent, "first=one second=two", from);
		const response = await agent.waitFor(isResponseTo("pair"), { start: from });
		expect(response).toEqual({
			id: "pair",
			type: "response",
			command: "prompt",
			success: true,
			data: { disposition: "handled" },
		});
		// The command finished (its notification is out) before its prompt was answered.
		expect(agent.records.indexOf(notify)).toBeLessThan(agent.records.indexOf(response));
	});
});

describe("dialogs cancelled by the session", () => {
	it("abort resolves a command's confirm with false", async () => {
		const { agent } = await start();
		const from = agent.mark();
		agent.send({ id: "ask", type: "prompt", message: "/ask" });
		const dialog = await nextDialog(agent, "confirm", from);
		expect(dialog).toEqual({
			type: "extension_ui_request",
			id: expect.stringMatching(UUID),
			method: "confirm",
			title: "Proceed?",
			message: "The command waits for this",
		});
		await agent.ok({ type: "abort" });
		await notified(agent, "ask confirmed=false", from);
		expect(await agent.waitFor(isResponseTo("ask"), { start: from })).toMatchObject({ success: true });
		// The dialog is gone: a late answer changes nothing and gets no response.
		const late = agent.mark();
		answer(agent, dialog, { confirmed: true });
		const state = await agent.request({ type: "get_state" });
		expect(agent.since(late)).toEqual([state]);
	});

	it("new_session resolves a command's open confirm with false", async () => {
		const { agent } = await start();
		const from = agent.mark();
		agent.send({ id: "ask", type: "prompt", message: "/ask" });
		await nextDialog(agent, "confirm", from);
		expect(await agent.ok({ type: "new_session" }, 5_000)).toEqual({ cancelled: false });
		await notified(agent, "ask confirmed=false", from);
	});

	it("abort resolves a tool_call confirm with false and the run ends", async () => {
		const { agent, dirs } = await start();
		const { run } = await toolWaitingOnConfirm(agent);
		await agent.ok({ type: "abort" });
		await notified(agent, "tool confirmed=false", run);
		await agent.waitForEvent("agent_settled", () => true, run);
		expect(existsSync(join(dirs.work, "ran.txt"))).toBe(false);
		expect(toolEnds(agent, run)).toMatchObject([{ toolName: "bash", isError: true }]);
		expect(harness.server.requests).toHaveLength(1);
		expect(agent.since(run, "agent_end")).toHaveLength(1);
	});

	it("new_session resolves an open tool_call confirm with false", async () => {
		const { agent, dirs } = await start();
		const { run } = await toolWaitingOnConfirm(agent);
		expect(await agent.ok({ type: "new_session" })).toEqual({ cancelled: false });
		await notified(agent, "tool confirmed=false", run);
		await agent.waitForEvent("agent_settled", () => true, run);
		expect(existsSync(join(dirs.work, "ran.txt"))).toBe(false);
		expect(harness.server.requests).toHaveLength(1);
		expect(await agent.ok({ type: "get_state" })).toMatchObject({ messageCount: 0, isStreaming: false });
	});
});
