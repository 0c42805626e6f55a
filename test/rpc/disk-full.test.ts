/**
 * A session file that stops accepting writes (here: the agent's file-size limit, lowered with
 * prlimit, so that writes past it fail with EFBIG after storing part of their bytes, as on a full
 * disk). Whatever the outcome, the conversation in memory and the file agree, and no client is
 * told that something succeeded that is not on disk.
 */
import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import { expectExitOnEof, expectResponsive } from "../support/responsive.js";
import type { RpcAgent } from "../support/rpc-process.js";
import { readJsonl, startAgent, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();
const hasPrlimit = spawnSync("prlimit", ["--version"]).status === 0;

/** Limits the size of any file the agent writes (soft limit; `undefined` lifts it). */
function limitFileSize(agent: RpcAgent, bytes: number | undefined): void {
	const run = spawnSync("prlimit", ["--pid", String(agent.child.pid), `--fsize=${bytes ?? "unlimited"}:`]);
	expect(run.status, run.stderr.toString()).toBe(0);
}

interface Message {
	role: string;
	content: unknown;
	stopReason?: string;
}

const messagesOf = async (agent: RpcAgent) =>
	((await agent.ok({ type: "get_messages" })) as { messages: Message[] }).messages;
const stateOf = async (agent: RpcAgent) =>
	(await agent.ok({ type: "get_state" })) as { sessionFile: string; model: { id: string } };

/** The messages a session file holds, in order (it has one branch here). */
function fileMessages(path: string): Message[] {
	return readJsonl(path)
		.filter((record) => record.type === "message")
		.map((record) => record.message as Message);
}

describe.skipIf(!hasPrlimit)("when the session file cannot grow", () => {
	it("memory and file agree after a reply, a tool call and commands fail to save", { timeout: 60_000 }, async () => {
		const { agent } = await startAgent(harness.server, { sessions: true });
		harness.server.enqueue(textReply("one"));
		await agent.prompt("first");
		const { sessionFile } = await stateOf(agent);

		// Room for the next prompt, not for its long reply.
		limitFileSize(agent, statSync(sessionFile).size + 1500);
		harness.server.enqueue(textReply("x".repeat(20_000)));
		const { start } = await agent.prompt("second");
		const warnings = agent.since(start, "warning").map((record) => String(record.message));
		expect(warnings).toEqual([
			expect.stringMatching(
				/^The session could not be saved: EFBIG: file too large, write\. The run was stopped; the conversation keeps only what is saved\.$/,
			),
		]);
		expect((await messagesOf(agent)).map((message) => message.role)).toEqual(["user", "assistant", "user"]);
		expect(await messagesOf(agent)).toEqual(fileMessages(sessionFile));

		// A reply that calls a tool: the call is not saved, so the tool's result is not either.
		limitFileSize(agent, statSync(sessionFile).size + 1500);
		harness.server.enqueue({
			blocks: [
				{ type: "text", text: "y".repeat(20_000) },
				{ type: "toolCall", name: "bash", arguments: { command: "echo hi" } },
			],
		});
		const toolRun = await agent.prompt("third");
		expect(agent.since(toolRun.start, "warning")).toHaveLength(1);
		// The run stopped: the model was not asked again with the tool's result.
		expect(harness.server.requests).toHaveLength(3);
		expect(await messagesOf(agent)).toEqual(fileMessages(sessionFile));

		// Nothing fits any more: commands that change the session fail instead of claiming success.
		limitFileSize(agent, statSync(sessionFile).size);
		const model = (await stateOf(agent)).model.id;
		const setModel = await agent.request({ type: "set_model", provider: "mock", modelId: "mock-reasoner" });
		expect(setModel).toMatchObject({ success: false });
		expect(String(setModel.error)).toMatch(/^The change could not be saved to the session: EFBIG/);
		expect((await stateOf(agent)).model.id).toBe(model);
		expect(await agent.request({ type: "set_session_name", name: "lost" })).toMatchObject({ success: false });
		const bash = (await agent.ok({ type: "bash", command: "echo ran" })) as { output: string };
		expect(bash.output).toBe("ran\n");
		expect(await messagesOf(agent)).toEqual(fileMessages(sessionFile));
		await expectResponsive(agent);

		// Room again: the conversation goes on where the file is.
		limitFileSize(agent, undefined);
		harness.server.enqueue(textReply("back"));
		await agent.prompt("fourth");
		const final = await messagesOf(agent);
		expect(final.map((message) => message.role)).toEqual(["user", "assistant", "user", "user", "user", "assistant"]);
		expect(final).toEqual(fileMessages(sessionFile));
		await expectExitOnEof(agent);

		const { agent: reopened } = await startAgent(harness.server, { sessions: true, args: ["--session", sessionFile] });
		expect(await messagesOf(reopened)).toEqual(final);
	});
});
