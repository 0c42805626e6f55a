import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { type LlmServer, textReply, toolReply } from "../support/llm-server.js";
import { useLlmServers } from "../support/llm-servers.js";
import { type RpcAgent, testProviders } from "../support/rpc-process.js";
import { startAgent, stderrShows, stopAgents } from "./helpers.js";

const CERT = fileURLToPath(new URL("../support/tls/cert.pem", import.meta.url));
const KEY = fileURLToPath(new URL("../support/tls/key.pem", import.meta.url));
const DEBUG = { ATOMIC_DEBUG_IDLE: "1" };
const LAST_STEP = "preload: command-validator loaded";

const startServer = useLlmServers();
// Registered after the servers' cleanup, so it runs first: the agents stop before their server closes.
afterEach(stopAgents);

async function toolLoop(agent: RpcAgent, server: LlmServer): Promise<void> {
	server.enqueue(toolReply("bash", { command: "echo hi" }), textReply("done"));
	const { start } = await agent.prompt("run it");
	expect(agent.since(start, "tool_execution_end")).toHaveLength(1);
	expect(await agent.ok({ type: "get_last_assistant_text" })).toEqual({ text: "done" });
}

describe("the connection to the model's server, opened while idle", () => {
	it("is the one the first prompt's requests go out on", async () => {
		const server = await startServer();
		const { agent } = await startAgent(server, { env: DEBUG });
		await agent.ok({ type: "get_state" });
		await stderrShows(agent, LAST_STEP);
		expect(agent.stderr).toContain(`preload: connect:${server.origin} loaded`);
		// Opened, and nothing sent on it.
		expect(server.connections).toBe(1);
		expect(server.requests).toEqual([]);

		await toolLoop(agent, server);
		expect(server.requests.map((request) => request.connection)).toEqual([1, 1]);
		expect(server.connections).toBe(1);
	});

	it("is opened over TLS, verified against the CA store the requests use", async () => {
		const server = await startServer({ tls: { key: readFileSync(KEY, "utf8"), cert: readFileSync(CERT, "utf8") } });
		const { agent } = await startAgent(server, { env: { ...DEBUG, NODE_EXTRA_CA_CERTS: CERT } });
		await agent.ok({ type: "get_state" });
		await stderrShows(agent, LAST_STEP);
		expect(agent.stderr).toContain(`preload: connect:${server.origin} loaded`);
		await server.connected(1);

		await toolLoop(agent, server);
		expect(server.requests.map((request) => request.connection)).toEqual([1, 1]);
		expect(server.connections).toBe(1);
	});

	it("is opened to a host name, with the TLS server name the requests use", async () => {
		const server = await startServer({ tls: { key: readFileSync(KEY, "utf8"), cert: readFileSync(CERT, "utf8") } });
		const origin = `https://localhost:${server.port}`;
		const { mock } = testProviders(server);
		const { agent } = await startAgent(server, {
			env: { ...DEBUG, NODE_EXTRA_CA_CERTS: CERT },
			providers: { mock: { ...(mock as Record<string, unknown>), baseUrl: origin } },
			args: ["--provider", "mock", "--model", "mock-model"],
		});
		await agent.ok({ type: "get_state" });
		await stderrShows(agent, LAST_STEP);
		expect(agent.stderr).toContain(`preload: connect:${origin} loaded`);
		await server.connected(1);

		await toolLoop(agent, server);
		expect(server.requests.map((request) => request.connection)).toEqual([1, 1]);
		expect(server.requests[0]?.headers.host).toBe(`localhost:${server.port}`);
		expect(server.connections).toBe(1);
	});

	it("is not opened with --offline, and the prompt connects itself", async () => {
		const server = await startServer();
		const { agent } = await startAgent(server, { env: DEBUG, args: ["--offline"] });
		await agent.ok({ type: "get_state" });
		await stderrShows(agent, LAST_STEP);
		expect(agent.stderr).not.toContain("preload: connect:");
		expect(server.connections).toBe(0);

		await toolLoop(agent, server);
		expect(server.requests.map((request) => request.connection)).toEqual([1, 1]);
	});

	it("is not opened to a provider without credentials", async () => {
		const server = await startServer();
		// A built-in provider needs a key; its models are routed to the server, and no key is set.
		const { agent } = await startAgent(server, {
			env: DEBUG,
			providers: { anthropic: { baseUrl: server.origin } },
			args: ["--provider", "anthropic", "--model", "claude-fable-5"],
		});
		const state = (await agent.ok({ type: "get_state" })) as { model?: { provider: string; baseUrl: string } };
		expect(state.model).toMatchObject({ provider: "anthropic", baseUrl: server.origin });
		await stderrShows(agent, LAST_STEP);
		expect(agent.stderr).toContain(`preload: connect:${server.origin} loaded`);
		expect(server.connections).toBe(0);
	});
});
