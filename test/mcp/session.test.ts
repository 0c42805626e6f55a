import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AgentSession } from "../../src/runtime/facade/agent-session.js";
import { createAgentSession } from "../../src/runtime/facade/create-agent-session.js";
import type { AgentSessionEvent } from "../../src/runtime/facade/events.js";
import { processExists, stdioServerEntry } from "../support/mcp-stdio.js";
import { scriptedStream } from "../support/scripted-stream.js";
import { stdioConfig } from "./helpers.js";

const sdkLoads = vi.hoisted(() => ({ count: 0 }));

// Counts real imports of the MCP SDK's client by anything in the module graph.
vi.mock("@modelcontextprotocol/sdk/client/index.js", async (importOriginal) => {
	sdkLoads.count++;
	return importOriginal();
});

const sessions: AgentSession[] = [];

afterEach(async () => {
	for (const session of sessions.splice(0)) await session.dispose();
});

function tree(mcpServers?: Record<string, unknown>, settings?: Record<string, unknown>) {
	const root = mkdtempSync(join(tmpdir(), "atomic-mcp-session-"));
	const agentDir = join(root, "agent");
	const cwd = join(root, "work");
	mkdirSync(agentDir);
	mkdirSync(cwd);
	const models = [{ id: "model-1", contextWindow: 100_000, maxTokens: 1000 }];
	const providers = { fake: { baseUrl: "http://127.0.0.1:9", api: "anthropic-messages", apiKey: "key", models } };
	writeFileSync(join(agentDir, "models.json"), JSON.stringify({ providers }));
	if (mcpServers) writeFileSync(join(agentDir, "mcp.json"), JSON.stringify({ mcpServers }));
	if (settings) writeFileSync(join(agentDir, "settings.json"), JSON.stringify(settings));
	return { root, agentDir, cwd };
}

function start(dirs: ReturnType<typeof tree>, stream = scriptedStream()) {
	const { session } = createAgentSession({
		cwd: dirs.cwd,
		agentDir: dirs.agentDir,
		env: { HOME: dirs.root },
		model: "fake/model-1",
		noSession: true,
		persistDefaults: false,
		streamFunction: stream,
	});
	sessions.push(session);
	const events: AgentSessionEvent[] = [];
	session.subscribe((event) => {
		events.push(event);
	});
	return { session, stream, events };
}

describe("MCP in an AgentSession", () => {
	it("loads nothing of MCP without configuration", async () => {
		const { session } = start(tree());
		expect(await session.getMcpServers()).toEqual([]);
		expect(session.getState().tools.some((name) => name.startsWith("mcp__"))).toBe(false);
		expect(sdkLoads.count).toBe(0);
	});

	it("is ready before the SDK loads; the first model request waits for the server and sees its tools", async () => {
		const entry = await stdioServerEntry();
		const stream = scriptedStream(
			{ blocks: [{ type: "toolCall", name: "mcp__test__write_note", arguments: { text: "hi" } }] },
			{ blocks: [{ type: "text", text: "done" }] },
		);
		const before = sdkLoads.count;
		const { session, events } = start(tree({ test: entry }), stream);
		// Built synchronously: get_state is answered before any MCP work ran.
		expect(session.getState().tools).toEqual(["read", "bash", "edit", "write", "grep", "find", "ls"]);
		expect(sdkLoads.count).toBe(before);

		await session.prompt("note something");
		const firstTools = stream.calls[0]?.context.tools?.map((tool) => tool.name) ?? [];
		expect(firstTools).toContain("mcp__test__write_note");
		expect(stream.calls[0]?.context.systemPrompt).toContain("- mcp__test__write_note: Write a note.");
		const end = events.find((event) => event.type === "tool_execution_end");
		expect(end).toMatchObject({ isError: false, result: { content: [{ type: "text", text: "noted: hi" }] } });
		expect(session.getState().tools).toContain("mcp__test__write_note");
	});

	it("ends the wait for a starting server when the run is aborted", async () => {
		const gateFile = join(mkdtempSync(join(tmpdir(), "atomic-mcp-")), "gate");
		const entry = await stdioServerEntry({ gateFile });
		// Without the abort the wait would last as long as the test may.
		const { session, stream, events } = start(tree({ held: entry }, { mcp: { startupTimeoutMs: 600_000 } }));
		const prompted = session.prompt("hello");
		await new Promise<void>((resolve) => {
			const unsubscribe = session.subscribe((event) => {
				if (event.type === "message_end" && event.message.role === "user") {
					unsubscribe();
					resolve();
				}
			});
		});
		await session.abort();
		await prompted;
		// The server never started (its gate stayed shut): the run ended without waiting for it.
		expect(session.getState().tools).not.toContain("mcp__held__echo");
		const reply = events.find((event) => event.type === "message_end" && event.message.role === "assistant");
		expect(reply).toMatchObject({ message: { stopReason: "aborted" } });
		expect(stream.calls.every((call) => call.options.signal?.aborted)).toBe(true);
	});

	it("starts servers added at run time (an ACP session's) and stops them when removed", async () => {
		const { session, events } = start(tree());
		const pidFile = join(mkdtempSync(join(tmpdir(), "atomic-mcp-")), "pid");
		const config = { ...(await stdioConfig("editor", { pidFile })), source: "acp" as const };
		await session.mcp.add([config]);
		await session.mcp.beforeModelRequest();
		expect(await session.getMcpServers()).toEqual([
			expect.objectContaining({ name: "editor", status: "connected", source: "acp" }),
		]);
		expect(session.getState().tools).toContain("mcp__editor__echo");
		const pid = Number(readFileSync(pidFile, "utf8"));
		await session.mcp.remove(["editor"]);
		expect(processExists(pid)).toBe(false);
		expect(await session.getMcpServers()).toEqual([]);
		await session.mcp.beforeModelRequest();
		expect(session.getState().tools).not.toContain("mcp__editor__echo");
		expect(events.filter((event) => event.type === "mcp_server_update").map((event) => event.status)).toEqual([
			"starting",
			"connected",
			"closed",
		]);
	});
});
