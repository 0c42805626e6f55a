import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseEntry } from "../../src/mcp/config-file.js";
import type { McpServerConfig } from "../../src/mcp/types.js";
import { McpHttpServer } from "../support/mcp-http-server.js";
import { createManager, type ManagerHarness } from "./helpers.js";

let http: McpHttpServer;
const harnesses: ManagerHarness[] = [];

beforeAll(async () => {
	http = await McpHttpServer.start({ token: "s3cret" });
});

afterEach(async () => {
	for (const created of harnesses.splice(0)) await created.manager.close();
});

afterAll(async () => {
	await http.close();
});

/** The server configured as a user would write it, the token read from the environment. */
function remote(name: string, type: "http" | "sse", token = "s3cret"): McpServerConfig {
	const entry = {
		type,
		url: type === "http" ? http.url : http.sseUrl,
		headers: { Authorization: "Bearer $MCP_TOKEN" },
	};
	const config = parseEntry(name, entry, { source: "user", env: { MCP_TOKEN: token } });
	if (typeof config === "string") throw new Error(config);
	return config;
}

async function connected(config: McpServerConfig, options: Parameters<typeof createManager>[0] = {}) {
	const h = createManager(options);
	harnesses.push(h);
	h.manager.add([config]);
	await h.waitForUpdate((update) => update.status !== "starting");
	expect(h.manager.servers()[0]?.status, JSON.stringify(h.manager.servers())).toBe("connected");
	return h;
}

function tool(h: ManagerHarness, name: string) {
	const found = h.manager.tools().find((candidate) => candidate.name === name);
	if (!found) throw new Error(`no tool ${name}`);
	return found;
}

describe.each(["http", "sse"] as const)("MCP server over %s", (type) => {
	it("connects with the configured headers and calls tools", async () => {
		const h = await connected(remote("web", type));
		expect(h.manager.servers()[0]).toMatchObject({
			transport: type,
			tools: expect.arrayContaining(["mcp__web__echo"]),
		});
		const result = await tool(h, "mcp__web__echo").execute(
			"c1",
			{ text: "over the wire" },
			new AbortController().signal,
			() => undefined,
		);
		expect(result.content).toEqual([{ type: "text", text: "over the wire" }]);
	});

	it("fails with the HTTP status when the token is wrong", async () => {
		const h = createManager();
		harnesses.push(h);
		h.manager.add([remote("web", type, "wrong")]);
		const failed = await h.waitForUpdate((update) => update.status === "failed");
		expect(failed.error).toMatch(/401/);
	});
});

describe("MCP calls that do not finish", () => {
	it("cancels a call that exceeds the tool timeout, with an error naming the server; the server hears the cancel", async () => {
		const h = await connected(remote("slow", "http"), { toolTimeoutMs: 300 });
		const start = http.events.length;
		await expect(
			tool(h, "mcp__slow__wait").execute("c1", {}, new AbortController().signal, () => undefined),
		).rejects.toThrow('MCP server "slow": the call to "wait" did not finish within 300 ms and was cancelled');
		const cancelled = await http.waitForEvent(
			(event) => event.type === "cancelled" && http.events.indexOf(event) >= start,
		);
		expect(cancelled).toMatchObject({ type: "cancelled", tool: "wait" });
		// The server is still there.
		expect(h.manager.servers()[0]?.status).toBe("connected");
	});

	it("sends the MCP cancel notification when the call is aborted", async () => {
		const h = await connected(remote("slow", "http"));
		const start = http.events.length;
		const controller = new AbortController();
		const call = tool(h, "mcp__slow__wait").execute("c1", {}, controller.signal, () => undefined);
		await http.waitForEvent(
			(event) => event.type === "call" && event.tool === "wait" && http.events.indexOf(event) >= start,
		);
		controller.abort();
		await expect(call).rejects.toThrow('the call to "wait" to MCP server "slow" was cancelled');
		await http.waitForEvent((event) => event.type === "cancelled" && http.events.indexOf(event) >= start);
	});
});

describe("MCP prompts", () => {
	it("lists a server's prompts and expands one with positional arguments", async () => {
		const h = await connected(remote("docs", "http"));
		expect(h.manager.prompts()).toEqual([
			{
				command: "mcp__docs__review",
				server: "docs",
				prompt: "review",
				description: "Review a file.",
				arguments: [
					{ name: "file", description: "The file to review", required: true },
					{ name: "focus", description: "What to look at" },
				],
			},
		]);
		expect(await h.manager.expandPrompt("mcp__docs__review", ["src/a.ts", "error", "handling"])).toBe(
			"Review src/a.ts for error handling.",
		);
		expect(await h.manager.expandPrompt("mcp__docs__review", ["src/a.ts"])).toBe("Review src/a.ts.");
		await expect(h.manager.expandPrompt("mcp__docs__review", [])).rejects.toThrow(
			'/mcp__docs__review needs "file": /mcp__docs__review <file> [focus]',
		);
	});
});
