import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import { expectExitOnEof, expectResponsive } from "../support/responsive.js";
import type { RpcAgent } from "../support/rpc-process.js";
import { jsonlFiles, readJsonl, startAgent, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

interface State {
	sessionFile: string;
	sessionId: string;
	messageCount: number;
}

const state = async (agent: RpcAgent) => (await agent.ok({ type: "get_state" })) as State;

// What new_session, switch_session, fork and clone write and carry is checked in process:
// test/runtime/session-switching.test.ts.
describe("session files", () => {
	it("exist with the first entry: what a client was told succeeded is on disk when it is told", async () => {
		const { agent, sessionDir } = await startAgent(harness.server, { sessions: true });
		const { sessionFile } = await state(agent);
		expect(sessionFile.startsWith(`${sessionDir}/`)).toBe(true);
		expect(existsSync(sessionFile)).toBe(false);
		await agent.ok({ type: "set_session_name", name: "early" });
		expect(readJsonl(sessionFile).map((record) => record.type)).toEqual(["session", "session_info"]);
		await agent.ok({ type: "bash", command: "echo early" });
		expect(readJsonl(sessionFile).at(-1)).toMatchObject({ message: { role: "bashExecution", command: "echo early" } });
		harness.server.enqueue({ ...textReply("held"), fault: "stall", faultAfterFrames: 3 });
		const start = agent.mark();
		await agent.request({ type: "prompt", message: "hello" });
		await agent.waitForEvent(
			"message_start",
			(record) => (record.message as { role: string }).role === "assistant",
			start,
		);
		// The prompt is on disk while its reply streams.
		expect(readJsonl(sessionFile).at(-1)).toMatchObject({ message: { role: "user" } });
		await agent.ok({ type: "abort" });
		await agent.waitForEvent("agent_settled", () => true, start);
		const records = readJsonl(sessionFile);
		expect(records.map((record) => record.type)).toEqual(["session", "session_info", "message", "message", "message"]);
		expect(records[4]).toMatchObject({ message: { role: "assistant", stopReason: "aborted" } });
	});

	it("keep a name and a bash result given before any reply across new_session and exit", async () => {
		const { agent, sessionDir } = await startAgent(harness.server, { sessions: true });
		const first = (await state(agent)).sessionFile;
		await agent.ok({ type: "set_session_name", name: "before new" });
		await agent.ok({ type: "bash", command: "echo one" });
		await agent.ok({ type: "new_session" });
		const second = (await state(agent)).sessionFile;
		await agent.ok({ type: "bash", command: "echo two" });
		await agent.ok({ type: "set_session_name", name: "before exit" });
		await expectResponsive(agent);
		await expectExitOnEof(agent);
		expect(jsonlFiles(sessionDir).sort()).toEqual([first, second].sort());
		expect(readJsonl(first).slice(1)).toMatchObject([
			{ type: "session_info", name: "before new" },
			{ message: { role: "bashExecution", command: "echo one" } },
		]);
		expect(readJsonl(second).slice(1)).toMatchObject([
			{ message: { role: "bashExecution", command: "echo two" } },
			{ type: "session_info", name: "before exit" },
		]);
	});

	it("record a bash result that arrived during a run when the run ends, not at the next prompt", async () => {
		const { agent } = await startAgent(harness.server, { sessions: true });
		harness.server.enqueue({
			...textReply("slow reply", { delayMs: 100 }),
			blocks: [{ type: "text", text: "slow reply", chunks: 5 }],
		});
		const start = agent.mark();
		await agent.request({ type: "prompt", message: "take your time" });
		await agent.waitForEvent(
			"message_start",
			(record) => (record.message as { role: string }).role === "assistant",
			start,
		);
		await agent.ok({ type: "bash", command: "echo during" });
		await agent.waitForEvent("agent_settled", () => true, start);
		const { sessionFile } = await state(agent);
		expect(readJsonl(sessionFile).at(-1)).toMatchObject({ message: { role: "bashExecution", command: "echo during" } });
	});

	it("--no-session writes no file at all", async () => {
		const { agent, dirs } = await startAgent(harness.server);
		expect(await state(agent)).not.toHaveProperty("sessionFile");
		await agent.prompt("hello");
		await agent.ok({ type: "bash", command: "echo hi" });
		await agent.ok({ type: "new_session" });
		await agent.prompt("again");
		const sessions = join(dirs.agentDir, "sessions");
		expect(existsSync(sessions) ? readdirSync(sessions) : []).toEqual([]);
		expect(readdirSync(dirs.work)).toEqual([]);
	});

	it("switch_session refuses a file that is not a session and opens a missing path as a new one", async () => {
		const { agent, dirs } = await startAgent(harness.server, { sessions: true });
		await agent.prompt("hello");
		const before = await state(agent);
		const notSession = join(dirs.root, "notes.jsonl");
		writeFileSync(notSession, "hello\n");
		expect(await agent.request({ id: "bad", type: "switch_session", sessionPath: notSession })).toEqual({
			id: "bad",
			type: "response",
			command: "switch_session",
			success: false,
			error: `Not an Atomic session file: ${notSession}`,
		});
		expect(await state(agent)).toMatchObject({ sessionFile: before.sessionFile, messageCount: 2 });
		const missing = join(dirs.root, "later", "new.jsonl");
		expect(await agent.ok({ type: "switch_session", sessionPath: missing })).toEqual({ cancelled: false });
		expect(await state(agent)).toMatchObject({ sessionFile: missing, messageCount: 0 });
		await agent.prompt("written there");
		expect(readJsonl(missing).map((record) => record.type)).toEqual(["session", "message", "message"]);
	});

	it("export_html writes the session, at outputPath when given", async () => {
		const { agent, dirs } = await startAgent(harness.server, { sessions: true });
		expect(await agent.request({ id: "x0", type: "export_html" })).toEqual({
			id: "x0",
			type: "response",
			command: "export_html",
			success: false,
			error: "Nothing to export yet - start a conversation first",
		});
		harness.server.enqueue(textReply("exported <answer> text"));
		await agent.prompt("export me");
		const { sessionId } = await state(agent);
		const defaultPath = join(dirs.work, `atomic-session-${sessionId}.html`);
		expect(await agent.request({ id: "x1", type: "export_html" })).toEqual({
			id: "x1",
			type: "response",
			command: "export_html",
			success: true,
			data: { path: defaultPath },
		});
		expect(readFileSync(defaultPath, "utf8")).toContain("export me");
		const custom = join(dirs.root, "out", "session.html");
		expect(await agent.ok({ type: "export_html", outputPath: custom })).toEqual({ path: custom });
		const html = readFileSync(custom, "utf8");
		expect(html).toMatch(/^<!DOCTYPE html>/i);
		expect(html).toContain("exported &lt;answer&gt; text");
		expect(await agent.ok({ type: "export_html", outputPath: "relative.html" })).toEqual({
			path: join(dirs.work, "relative.html"),
		});
	});

	it("export_html works for an in-memory session", async () => {
		const { agent, dirs } = await startAgent(harness.server);
		harness.server.enqueue(textReply("in memory answer"));
		await agent.prompt("no file");
		const target = join(dirs.root, "memory.html");
		expect(await agent.ok({ type: "export_html", outputPath: target })).toEqual({ path: target });
		expect(readFileSync(target, "utf8")).toContain("in memory answer");
		const withoutPath = await agent.request({ type: "export_html" });
		expect(withoutPath).toMatchObject({
			success: false,
			error: "Cannot export in-memory session to HTML without an outputPath",
		});
	});
});
