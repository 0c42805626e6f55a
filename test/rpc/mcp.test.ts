import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textReply, toolReply } from "../support/llm-server.js";
import { type StdioServerOptions, stdioServerScript } from "../support/mcp-stdio.js";
import type { RpcRecord } from "../support/rpc-process.js";
import { type AgentDirs, anthropicBody, type StartOptions, startAgent, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

interface AnthropicTool {
	name: string;
	description: string;
	input_schema: unknown;
}

function writeServers(path: string, servers: Record<string, unknown>): void {
	writeFileSync(path, JSON.stringify({ mcpServers: servers }));
}

type ServerOptions = (dirs: AgentDirs) => StdioServerOptions;

/** A `mcpServers` entry of the test server over stdio, with options that may name files in the tree. */
async function serverEntry(options: ServerOptions = () => ({})) {
	const script = await stdioServerScript();
	return (dirs: AgentDirs) => ({ command: process.execPath, args: [script, JSON.stringify(options(dirs))] });
}

/** Starts an agent whose user mcp.json has the test server as `test`. */
async function startWithServer(options: StartOptions & { server?: ServerOptions } = {}) {
	const entry = await serverEntry(options.server);
	return startAgent(harness.server, {
		...options,
		prepare: (dirs) => {
			writeServers(join(dirs.agentDir, "mcp.json"), { test: entry(dirs) });
			options.prepare?.(dirs);
		},
	});
}

function connectedEvent(name: string) {
	return (record: RpcRecord) => record.name === name && record.status === "connected";
}

function toolEnds(records: RpcRecord[]) {
	return records.filter((record) => record.type === "tool_execution_end");
}

describe("MCP servers over RPC", () => {
	it("offers a server's tools to the model, runs their calls, and reports the server", async () => {
		const { agent } = await startWithServer();
		await agent.waitForEvent("mcp_server_update", connectedEvent("test"));
		expect(agent.since(0, "mcp_server_update").map((record) => [record.status, record.tools])).toEqual([
			["starting", 0],
			["connected", 9],
		]);
		const { servers } = (await agent.ok({ type: "get_mcp_servers" })) as { servers: Record<string, unknown>[] };
		expect(servers).toEqual([
			{ name: "test", status: "connected", transport: "stdio", source: "user", tools: expect.any(Array) },
		]);
		const state = (await agent.ok({ type: "get_state" })) as { tools: string[] };
		expect(state.tools).toEqual(expect.arrayContaining(["read", "bash", "mcp__test__echo", "mcp__test__image"]));

		harness.server.enqueue(toolReply("mcp__test__echo", { text: "from the server" }), textReply("done"));
		const { start } = await agent.prompt("echo something");
		const first = anthropicBody(harness.server.requests[0]) as unknown as {
			tools: AnthropicTool[];
			system: { text: string }[];
		};
		expect(first.tools.find((tool) => tool.name === "mcp__test__echo")).toEqual({
			name: "mcp__test__echo",
			description: "Echo the text back. Read-only.",
			input_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
		});
		expect(first.system.map((block) => block.text).join("\n")).toContain("\n- mcp__test__echo: Echo the text back.\n");
		expect(toolEnds(agent.since(start))).toEqual([
			{
				type: "tool_execution_end",
				toolCallId: expect.any(String),
				toolName: "mcp__test__echo",
				result: { content: [{ type: "text", text: "from the server" }], details: { server: "test", tool: "echo" } },
				isError: false,
			},
		]);
	});

	it("answers get_state at once while a server starts; the first model request waits for it", async () => {
		const { agent, dirs } = await startWithServer({ server: (tree) => ({ gateFile: join(tree.root, "gate") }) });
		await agent.ok({ type: "get_state" });
		await agent.waitForEvent("mcp_server_update", (record) => record.status === "starting");
		harness.server.enqueue(textReply("hello"));
		const prompted = agent.prompt("which tools?");
		await agent.waitForEvent("agent_start");
		// The run has started; the server is still held at its gate, so the model request waits.
		expect(harness.server.requests).toHaveLength(0);
		writeFileSync(join(dirs.root, "gate"), "");
		await prompted;
		const statuses = agent.records
			.filter((record) => record.type === "mcp_server_update")
			.map((record) => record.status);
		expect(statuses).toEqual(["starting", "connected"]);
		const connectedAt = agent.records.findIndex(
			(record) => record.type === "mcp_server_update" && record.status === "connected",
		);
		const stateAt = agent.records.findIndex((record) => record.type === "response" && record.command === "get_state");
		expect(stateAt).toBeLessThan(connectedAt);
		const body = anthropicBody(harness.server.requests[0]) as unknown as { tools: AnthropicTool[] };
		expect(body.tools.map((tool) => tool.name)).toContain("mcp__test__echo");
	});

	it("turns a crash mid-call into a tool error naming the server; the run goes on and the next call reconnects", async () => {
		const { agent } = await startWithServer();
		await agent.waitForEvent("mcp_server_update", connectedEvent("test"));
		harness.server.enqueue(
			toolReply("mcp__test__crash", {}),
			toolReply("mcp__test__echo", { text: "still here" }),
			textReply("recovered"),
		);
		const { start } = await agent.prompt("crash it");
		const ends = toolEnds(agent.since(start));
		expect(ends.map((record) => record.isError)).toEqual([true, false]);
		expect(JSON.stringify(ends[0]?.result)).toContain(
			'MCP server \\"test\\" failed during the call to \\"crash\\": the server process exited (exit code 3)',
		);
		expect(ends[1]?.result).toMatchObject({ content: [{ type: "text", text: "still here" }] });
		expect(agent.since(start, "mcp_server_update").map((record) => record.status)).toEqual([
			"failed",
			"starting",
			"connected",
		]);
		expect(harness.server.requests).toHaveLength(3);
	});
});

describe("which servers start", () => {
	it("skips the project's .mcp.json by default, and lists the server as skipped", async () => {
		const entry = await serverEntry((dirs) => ({ pidFile: join(dirs.root, "repo.pid") }));
		const { agent, dirs } = await startAgent(harness.server, {
			prepare: (tree) => {
				writeServers(join(tree.work, ".mcp.json"), { repo: entry(tree) });
				// A project cannot allow its own servers.
				mkdirSync(join(tree.work, ".atomic"));
				writeFileSync(
					join(tree.work, ".atomic", "settings.json"),
					JSON.stringify({ mcp: { projectServers: "allow" } }),
				);
			},
		});
		const skipped = await agent.waitForEvent("mcp_server_update");
		expect(skipped).toEqual({ type: "mcp_server_update", name: "repo", status: "skipped", tools: 0 });
		expect(await agent.ok({ type: "get_mcp_servers" })).toEqual({
			servers: [{ name: "repo", status: "skipped", transport: "stdio", source: "project", tools: [] }],
		});
		expect(existsSync(join(dirs.root, "repo.pid"))).toBe(false);
	});

	it("starts the project's servers when the user's settings allow them", async () => {
		const entry = await serverEntry();
		const { agent } = await startAgent(harness.server, {
			settings: { mcp: { projectServers: "allow" } },
			prepare: (dirs) => writeServers(join(dirs.work, ".mcp.json"), { repo: entry(dirs) }),
		});
		await agent.waitForEvent("mcp_server_update", connectedEvent("repo"));
		const { servers } = (await agent.ok({ type: "get_mcp_servers" })) as { servers: Record<string, unknown>[] };
		expect(servers[0]).toMatchObject({ name: "repo", status: "connected", source: "project" });
	});

	it("starts none with --no-mcp", async () => {
		const { agent, dirs } = await startWithServer({
			args: ["--no-mcp"],
			server: (tree) => ({ pidFile: join(tree.root, "user.pid") }),
		});
		expect(await agent.ok({ type: "get_mcp_servers" })).toEqual({ servers: [] });
		const state = (await agent.ok({ type: "get_state" })) as { tools: string[] };
		expect(state.tools.filter((name) => name.startsWith("mcp__"))).toEqual([]);
		expect(agent.since(0, "mcp_server_update")).toEqual([]);
		expect(existsSync(join(dirs.root, "user.pid"))).toBe(false);
	});
});
