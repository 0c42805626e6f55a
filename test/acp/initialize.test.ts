import { join } from "node:path";
import { RequestError } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { useAcpHarness } from "./helpers.js";

const harness = useAcpHarness();

async function rejection(promise: Promise<unknown>): Promise<RequestError> {
	try {
		await promise;
	} catch (error) {
		if (error instanceof RequestError) return error;
		throw error;
	}
	throw new Error("the request succeeded");
}

describe("ACP initialize and errors", () => {
	it("answers initialize with the protocol version, real capabilities, agentInfo and auth methods", async () => {
		const { client } = await harness.start({ initialize: false });
		const response = await client.initialize();
		expect(response.protocolVersion).toBe(1);
		expect(response.agentInfo).toMatchObject({ name: "atomic", version: expect.any(String) });
		expect(response.agentCapabilities).toEqual({
			loadSession: true,
			promptCapabilities: { image: true, audio: false, embeddedContext: true },
			mcpCapabilities: { http: true, sse: true },
			sessionCapabilities: { list: {}, resume: {}, close: {} },
		});
		expect(response.authMethods?.map((method) => method.id)).toEqual(["api-key"]);
	});

	it("answers a newer protocol version with the one it speaks", async () => {
		const { client } = await harness.start({ initialize: false });
		const response = await client.initialize({}, 7);
		expect(response.protocolVersion).toBe(1);
	});

	it("refuses unknown methods, bad params and unknown sessions with JSON-RPC errors and keeps serving", async () => {
		const { client, dirs } = await harness.start();
		const unknown = await rejection(client.agent.request("atomic/unknown", {}));
		expect(unknown.code).toBe(-32601);
		const relative = await rejection(client.agent.request("session/new", { cwd: "work", mcpServers: [] }));
		expect(relative.code).toBe(-32602);
		expect(relative.message).toContain("cwd must be an absolute path");
		for (const [cwd, text] of [
			["/dev/null", "cwd is a character device, not a directory"],
			[join(dirs.work, "missing"), "cwd cannot be used: ENOENT"],
		] as const) {
			const notDirectory = await rejection(client.agent.request("session/new", { cwd, mcpServers: [] }));
			expect(notDirectory.code).toBe(-32602);
			expect(notDirectory.message).toContain(text);
		}
		const malformed = await rejection(client.agent.request("session/new", { cwd: 42 }));
		expect(malformed.code).toBe(-32602);
		const missing = await rejection(client.agent.request("session/prompt", { sessionId: "nope", prompt: [] }));
		expect(missing.code).toBe(-32002);
		expect(missing.data).toEqual({ sessionId: "nope" });
		const load = await rejection(
			client.agent.request("session/load", { sessionId: "0000", cwd: dirs.work, mcpServers: [] }),
		);
		expect(load.code).toBe(-32002);
		const option = await rejection(
			client.agent.request("session/set_config_option", {
				sessionId: await client.newSession(dirs.work),
				configId: "colour",
				value: "blue",
			}),
		);
		expect(option.message).toContain('unknown config option "colour"');
		// Still serving after all of that.
		expect(await client.newSession(dirs.work)).toEqual(expect.any(String));
	});

	it("survives a line that is not JSON", async () => {
		const { client, dirs } = await harness.start();
		client.child.stdin.write("this is not json\n");
		expect(await client.newSession(dirs.work)).toEqual(expect.any(String));
	});

	it("authenticate succeeds when a provider has a key and names the method it knows", async () => {
		const { client } = await harness.start();
		await expect(client.agent.request("authenticate", { methodId: "api-key" })).resolves.toBeDefined();
		const unknown = await rejection(client.agent.request("authenticate", { methodId: "oauth" }));
		expect(unknown.message).toContain('unknown authentication method "oauth"');
	});

	it("a prompt without a key fails with authentication required", async () => {
		const { client, dirs } = await harness.start({ args: ["--provider", "anthropic", "--model", "claude-sonnet-4-5"] });
		const sessionId = await client.newSession(dirs.work);
		const error = await rejection(
			client.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] }),
		);
		expect(error.code).toBe(-32000);
		expect(error.message).toMatch(/No API key for anthropic|No model is configured/);
	});

	it("exits 0 when stdin closes", async () => {
		const { client, dirs } = await harness.start();
		await client.newSession(dirs.work);
		expect(await client.close()).toEqual({ code: 0, signal: null });
	});
});
