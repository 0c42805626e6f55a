import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textReply, toolReply } from "../support/llm-server.js";
import type { RpcAgent, RpcRecord } from "../support/rpc-process.js";
import {
	answer,
	EXAMPLES,
	type ExtensionStartOptions,
	nextDialog,
	startWithExtensions,
	textResult,
	toolEnds,
	UUID,
	uiFrames,
} from "./extensions-helpers.js";
import { type AgentDirs, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

const SELECT = {
	type: "extension_ui_request",
	method: "select",
	title: "Allow dangerous command?",
	options: ["Allow", "Block"],
	timeout: 10000,
};

/** The example with a 300 ms timeout instead of 10 s, so that "no answer" is quick to test. */
function shortTimeoutExample(): string {
	const source = readFileSync(join(EXAMPLES, "confirm-dangerous-bash.ts"), "utf8");
	const changed = source.replace("{ timeout: 10_000 }", "{ timeout: 300 }");
	if (changed === source) throw new Error("the example's timeout option was not found");
	return changed;
}

function makeVictim(dirs: AgentDirs): void {
	mkdirSync(join(dirs.work, "victim"));
	writeFileSync(join(dirs.work, "victim", "keep.txt"), "precious\n");
}

/** Starts the agent, lets the model call `rm -rf <work>/victim`, and resolves with the dialog. */
async function dangerousCall(options: ExtensionStartOptions = { examples: ["confirm-dangerous-bash.ts"] }) {
	const started = await startWithExtensions(harness.server, { ...options, prepare: makeVictim });
	const { agent, dirs } = started;
	const victim = join(dirs.work, "victim");
	harness.server.enqueue(toolReply("bash", { command: `rm -rf ${victim}` }), textReply("done"));
	const start = agent.mark();
	await agent.ok({ type: "prompt", message: "clean up" });
	const dialog = await nextDialog(agent, "select", start);
	// The command waits for the answer.
	expect(existsSync(victim)).toBe(true);
	return { agent, victim, start, dialog };
}

function settled(agent: RpcAgent, start: number): Promise<RpcRecord> {
	return agent.waitForEvent("agent_settled", () => true, start);
}

/** The tool_result block the model received in its second request. */
function toolResultSent(): unknown {
	const body = harness.server.requests[1]?.body as { messages: { content: unknown }[] } | undefined;
	const content = body?.messages.at(-1)?.content;
	return Array.isArray(content) ? content[0] : undefined;
}

describe("confirm-dangerous-bash over RPC", () => {
	it("asks with a 10 s select; Allow runs the command", async () => {
		const { agent, victim, start, dialog } = await dangerousCall();
		expect(dialog).toEqual({ ...SELECT, id: expect.stringMatching(UUID) });
		answer(agent, dialog, { value: "Allow" });
		await settled(agent, start);
		expect(existsSync(victim)).toBe(false);
		expect(toolEnds(agent, start)).toMatchObject([{ toolName: "bash", isError: false }]);
		expect(uiFrames(agent, start)).toEqual([SELECT]);
		expect(harness.server.requests).toHaveLength(2);
	});

	it("Block gives the model an error result with the reason and leaves the directory", async () => {
		const { agent, victim, start, dialog } = await dangerousCall();
		answer(agent, dialog, { value: "Block" });
		await settled(agent, start);
		expect(existsSync(join(victim, "keep.txt"))).toBe(true);
		expect(toolEnds(agent, start)).toMatchObject([
			{ toolName: "bash", isError: true, result: textResult("Blocked by the user") },
		]);
		expect(toolResultSent()).toMatchObject({
			type: "tool_result",
			is_error: true,
			content: [{ type: "text", text: "Blocked by the user" }],
		});
		expect(uiFrames(agent, start)).toEqual([
			SELECT,
			{ type: "extension_ui_request", method: "notify", message: `Blocked: rm -rf ${victim}`, notifyType: "warning" },
		]);
	});

	it("a cancelled dialog blocks", async () => {
		const { agent, victim, start, dialog } = await dangerousCall();
		answer(agent, dialog, { cancelled: true });
		await settled(agent, start);
		expect(existsSync(join(victim, "keep.txt"))).toBe(true);
		expect(toolEnds(agent, start)).toMatchObject([
			{ toolName: "bash", isError: true, result: textResult("No answer from the user; blocked") },
		]);
	});

	it("no answer: the dialog times out and blocks; a late answer is ignored", async () => {
		const { agent, victim, start, dialog } = await dangerousCall({
			sources: { "confirm-300ms.ts": shortTimeoutExample() },
		});
		expect(dialog).toEqual({ ...SELECT, timeout: 300, id: expect.stringMatching(UUID) });
		await settled(agent, start);
		expect(toolEnds(agent, start)).toMatchObject([
			{ toolName: "bash", isError: true, result: textResult("No answer from the user; blocked") },
		]);

		const late = agent.mark();
		answer(agent, dialog, { value: "Allow" });
		const state = await agent.request({ id: "after-late", type: "get_state" });
		expect(state).toMatchObject({ type: "response", command: "get_state", success: true });
		// Nothing answers the late response, and nothing ran because of it.
		expect(agent.since(late)).toEqual([state]);
		expect(existsSync(join(victim, "keep.txt"))).toBe(true);
		expect(agent.child.exitCode).toBeNull();
	});

	it("a harmless command raises no dialog", async () => {
		const { agent } = await startWithExtensions(harness.server, { examples: ["confirm-dangerous-bash.ts"] });
		harness.server.enqueue(toolReply("bash", { command: "echo ok" }), textReply("done"));
		const { start } = await agent.prompt("say ok");
		expect(toolEnds(agent, start)).toMatchObject([
			{ toolName: "bash", isError: false, result: { content: [{ type: "text", text: "ok" }] } },
		]);
		expect(agent.since(start, "extension_ui_request")).toEqual([]);
	});
});
