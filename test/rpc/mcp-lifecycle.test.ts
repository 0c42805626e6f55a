import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RpcClient } from "../../src/index.js";
import { textReply, toolReply } from "../support/llm-server.js";
import { McpHttpServer } from "../support/mcp-http-server.js";
import { processExists, stdioServerScript } from "../support/mcp-stdio.js";
import { CLI, childEnv, makeAgentDir, type RpcRecord } from "../support/rpc-process.js";
import { startAgent, transcript, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();
let http: McpHttpServer;

beforeAll(async () => {
	http = await McpHttpServer.start({ token: "tk" });
});

afterAll(async () => {
	await http.close();
});

function writeServers(path: string, servers: Record<string, unknown>): string {
	writeFileSync(path, JSON.stringify({ mcpServers: servers }));
	return path;
}

/** An agent with the HTTP test server as `remote`, from a --mcp-config file, its token from the environment. */
async function startWithRemote(settings: Record<string, unknown> = {}) {
	const started = await startAgent(harness.server, {
		settings,
		env: { REMOTE_TOKEN: "tk" },
		args: ["--mcp-config", "servers.json"],
		prepare: (dirs) =>
			writeServers(join(dirs.work, "servers.json"), {
				remote: { type: "http", url: http.url, headers: { Authorization: "Bearer $REMOTE_TOKEN" } },
			}),
	});
	await started.agent.waitForEvent("mcp_server_update", (record) => record.status === "connected");
	return started;
}

function toolEnd(records: RpcRecord[]): RpcRecord | undefined {
	return records.find((record) => record.type === "tool_execution_end");
}

describe("MCP calls over RPC", () => {
	it("cancels a call on abort: the server receives the MCP cancel notification", async () => {
		const { agent } = await startWithRemote();
		const start = http.events.length;
		harness.server.enqueue(toolReply("mcp__remote__wait", {}));
		const prompted = agent.prompt("wait for it");
		await http.waitForEvent((event) => event.type === "call" && http.events.indexOf(event) >= start);
		await agent.ok({ type: "abort" });
		const { start: from } = await prompted;
		await http.waitForEvent((event) => event.type === "cancelled" && http.events.indexOf(event) >= start);
		const end = toolEnd(agent.since(from));
		expect(end?.isError).toBe(true);
		expect(JSON.stringify(end?.result)).toContain('the call to \\"wait\\" to MCP server \\"remote\\" was cancelled');
	});

	it("ends a call after mcp.toolTimeoutMs with a tool error, and the run goes on", async () => {
		const { agent } = await startWithRemote({ mcp: { toolTimeoutMs: 300 } });
		harness.server.enqueue(toolReply("mcp__remote__wait", {}), textReply("gave up"));
		const { start } = await agent.prompt("wait for it");
		const end = toolEnd(agent.since(start));
		expect(end?.isError).toBe(true);
		expect(JSON.stringify(end?.result)).toContain(
			'MCP server \\"remote\\": the call to \\"wait\\" did not finish within 300 ms and was cancelled',
		);
		expect(harness.server.requests).toHaveLength(2);
	});

	it("offers server prompts as commands and expands them like prompt templates", async () => {
		const { agent } = await startWithRemote();
		const { commands } = (await agent.ok({ type: "get_commands" })) as { commands: Record<string, unknown>[] };
		expect(commands).toContainEqual({ name: "mcp__remote__review", description: "Review a file.", source: "mcp" });
		harness.server.enqueue(textReply("reviewed"));
		await agent.prompt('/mcp__remote__review src/app.ts "error handling"');
		expect(transcript(harness.server.requests[0])).toEqual(["user: Review src/app.ts for error handling."]);
		const missing = await agent.request({ type: "prompt", message: "/mcp__remote__review" });
		expect(missing).toMatchObject({
			success: false,
			error: '/mcp__remote__review needs "file": /mcp__remote__review <file> [focus]',
		});
	});

	it("reports a bad configuration entry as a warning naming the file and the field", async () => {
		const { agent, dirs } = await startAgent(harness.server, {
			prepare: (tree) =>
				writeServers(join(tree.agentDir, "mcp.json"), { "no good": { command: "x" }, typo: { commnd: "x" } }),
		});
		const file = join(dirs.agentDir, "mcp.json");
		await agent.waitForEvent("warning", (record) => String(record.message).includes("typo"));
		const warnings = agent.since(0, "warning").map((record) => record.message);
		expect(warnings).toEqual([
			`${file}: mcpServers.no good: a server name may contain only letters, digits, "_" and "-"`,
			`${file}: mcpServers.typo needs "command"`,
		]);
		expect(await agent.ok({ type: "get_mcp_servers" })).toEqual({ servers: [] });
	});
});

describe("leaving no server process behind", () => {
	it.each([
		["stdin EOF", 0],
		["SIGTERM", 143],
	] as const)("ends every stdio server on %s, even one that ignores stdin EOF and SIGTERM", async (how, code) => {
		const script = await stdioServerScript();
		const pids: number[] = [];
		const { agent, dirs } = await startAgent(harness.server, {
			prepare: (tree) =>
				writeServers(join(tree.agentDir, "mcp.json"), {
					plain: {
						command: process.execPath,
						args: [script, JSON.stringify({ pidFile: join(tree.root, "plain.pid") })],
					},
					stubborn: {
						command: process.execPath,
						args: [script, JSON.stringify({ pidFile: join(tree.root, "stubborn.pid"), stubborn: true })],
					},
				}),
		});
		await agent.waitForEvent("mcp_server_update", (record) => record.name === "plain" && record.status === "connected");
		await agent.waitForEvent(
			"mcp_server_update",
			(record) => record.name === "stubborn" && record.status === "connected",
		);
		for (const name of ["plain", "stubborn"]) pids.push(Number(readFileSync(join(dirs.root, `${name}.pid`), "utf8")));
		try {
			expect(pids.map(processExists)).toEqual([true, true]);
			if (how === "SIGTERM") agent.child.kill("SIGTERM");
			else agent.child.stdin.end();
			expect((await agent.exited).code).toBe(code);
			expect(pids.map(processExists)).toEqual([false, false]);
		} finally {
			for (const pid of pids.filter(processExists)) process.kill(pid, "SIGKILL");
		}
	});
});

describe("RpcClient", () => {
	it("lists the MCP servers with getMcpServers()", async () => {
		const dirs = makeAgentDir({ server: harness.server });
		writeServers(join(dirs.agentDir, "mcp.json"), {
			remote: { type: "sse", url: http.sseUrl, headers: { Authorization: "Bearer tk" } },
		});
		const client = new RpcClient({
			cliPath: CLI,
			cwd: dirs.work,
			env: childEnv(dirs.agentDir, dirs.home),
			args: ["--no-session"],
		});
		try {
			const connected = new Promise<void>((resolve) => {
				client.onEvent((event) => {
					if (event.type === "mcp_server_update" && event.status === "connected") resolve();
				});
			});
			await client.start();
			await connected;
			expect(await client.getMcpServers()).toEqual([
				{
					name: "remote",
					status: "connected",
					transport: "sse",
					source: "user",
					tools: expect.arrayContaining(["mcp__remote__echo"]),
				},
			]);
		} finally {
			await client.close();
			dirs.cleanup();
		}
	});
});
