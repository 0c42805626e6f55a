import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { McpServer, SessionUpdate } from "@agentclientprotocol/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anthropicBody } from "../rpc/helpers.js";
import { textReply, toolReply } from "../support/llm-server.js";
import { McpHttpServer } from "../support/mcp-http-server.js";
import { processExists, stdioServerEntry } from "../support/mcp-stdio.js";
import { useAcpHarness } from "./helpers.js";

const harness = useAcpHarness();
let http: McpHttpServer;

beforeAll(async () => {
	http = await McpHttpServer.start({ token: "tk" });
});

afterAll(async () => {
	await http.close();
});

/** The test MCP server over stdio as an editor gives it in session/new; it writes its pid to `pidFile`. */
async function stdioServer(name: string, pidFile: string): Promise<McpServer> {
	const entry = await stdioServerEntry({ pidFile });
	return { name, command: entry.command, args: entry.args, env: [] };
}

function toolNames(body: unknown): string[] {
	const tools = (body as { tools?: { name: string }[] }).tools ?? [];
	return tools.map((tool) => tool.name);
}

function finished(updates: SessionUpdate[], toolCallId: string) {
	return updates.find(
		(update) =>
			update.sessionUpdate === "tool_call_update" && update.toolCallId === toolCallId && update.status === "completed",
	);
}

describe("MCP servers from session/new", () => {
	it("a stdio server's tools and prompts reach the model; closing the session ends the server", async () => {
		const { client, dirs } = await harness.start();
		const pidFile = join(dirs.root, "editor.pid");
		const created = await client.agent.request("session/new", {
			cwd: dirs.work,
			mcpServers: [await stdioServer("editor tools", pidFile)],
		});
		const sessionId = created.sessionId;
		harness.server.enqueue(
			{ blocks: [{ type: "toolCall", id: "call-echo", name: "mcp__editor_tools__echo", arguments: { text: "hi" } }] },
			textReply("echoed"),
		);
		const response = await client.agent.request("session/prompt", {
			sessionId,
			prompt: [{ type: "text", text: "use the tool" }],
		});
		expect(response.stopReason).toBe("end_turn");
		// The first model request already offered the server's tools (it waited for the server).
		expect(toolNames(harness.server.requests[0]?.body)).toEqual(
			expect.arrayContaining(["mcp__editor_tools__echo", "mcp__editor_tools__write_note"]),
		);
		const result = anthropicBody(harness.server.requests[1]).messages.at(-1)?.content;
		expect(Array.isArray(result) ? result[0] : undefined).toMatchObject({
			type: "tool_result",
			tool_use_id: "call-echo",
			content: [{ type: "text", text: "hi" }],
		});
		const described = client
			.updates(sessionId)
			.find(
				(update) => update.sessionUpdate === "tool_call_update" && update.toolCallId === "call-echo" && update.rawInput,
			);
		expect(described).toMatchObject({ kind: "other", title: "echo (editor_tools)", rawInput: { text: "hi" } });
		expect(finished(client.updates(sessionId), "call-echo")).toBeDefined();
		// The server's prompt is a command.
		await client.waitForUpdate(
			sessionId,
			(update) =>
				update.sessionUpdate === "available_commands_update" &&
				update.availableCommands.some((command) => command.name === "mcp__editor_tools__review"),
			"the MCP prompt as a command",
		);

		const pid = Number(readFileSync(pidFile, "utf8"));
		expect(processExists(pid)).toBe(true);
		await client.agent.request("session/close", { sessionId });
		expect(processExists(pid)).toBe(false);
	});

	it("stdin EOF ends the process and every session's servers", async () => {
		const { client, dirs } = await harness.start();
		const pidFiles = [join(dirs.root, "a.pid"), join(dirs.root, "b.pid")];
		const sessions = [
			await client.agent.request("session/new", {
				cwd: dirs.work,
				mcpServers: [await stdioServer("a", pidFiles[0] as string)],
			}),
			await client.agent.request("session/new", {
				cwd: dirs.work,
				mcpServers: [await stdioServer("b", pidFiles[1] as string)],
			}),
		];
		// A prompt in each session waits for its server to start.
		harness.server.enqueue(textReply("one"), textReply("two"));
		for (const { sessionId } of sessions) {
			await client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello" }] });
		}
		expect(toolNames(harness.server.requests[0]?.body)).toContain("mcp__a__echo");
		expect(toolNames(harness.server.requests[1]?.body)).toContain("mcp__b__echo");
		expect(toolNames(harness.server.requests[1]?.body)).not.toContain("mcp__a__echo");
		const pids = pidFiles.map((file) => Number(readFileSync(file, "utf8")));
		try {
			expect(pids.map(processExists)).toEqual([true, true]);
			expect(await client.close()).toMatchObject({ code: 0 });
			expect(pids.map(processExists)).toEqual([false, false]);
		} finally {
			for (const pid of pids.filter(processExists)) process.kill(pid, "SIGKILL");
		}
	});

	it("an HTTP server with headers is reached with them", async () => {
		const { client, dirs } = await harness.start();
		const start = http.events.length;
		const { sessionId } = await client.agent.request("session/new", {
			cwd: dirs.work,
			mcpServers: [
				{ type: "http", name: "remote", url: http.url, headers: [{ name: "Authorization", value: "Bearer tk" }] },
			],
		});
		harness.server.enqueue(toolReply("mcp__remote__write_note", { text: "from the editor" }), textReply("noted"));
		await client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "note it" }] });
		expect(http.events.slice(start)).toEqual([
			{ type: "call", tool: "write_note", arguments: { text: "from the editor" } },
		]);
		expect(JSON.stringify(anthropicBody(harness.server.requests[1]).messages)).toContain("noted: from the editor");
	});
});
