import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { closeHeldConnections, heldConnections, preconnect } from "../../src/llm/connection-pool.js";
import { providerFetch } from "../../src/llm/http-transport.js";
import type { LlmServer } from "../support/llm-server.js";
import { useLlmServers } from "../support/llm-servers.js";

const run = promisify(execFile);
const TLS = {
	key: readFileSync(new URL("../support/tls/key.pem", import.meta.url), "utf8"),
	cert: readFileSync(new URL("../support/tls/cert.pem", import.meta.url), "utf8"),
};

const startServer = useLlmServers();
afterEach(() => closeHeldConnections());

/** One streamed Anthropic request through the provider fetch; resolves with the body. */
async function ask(server: LlmServer): Promise<string> {
	const response = await providerFetch(`${server.origin}/v1/messages`, {
		method: "POST",
		headers: { "content-type": "application/json", "x-api-key": "test-key" },
		body: JSON.stringify({ model: "m", max_tokens: 5, stream: true, messages: [{ role: "user", content: "hi" }] }),
	});
	return response.text();
}

async function until(condition: () => boolean, what: string): Promise<void> {
	for (let waited = 0; !condition(); waited += 5) {
		if (waited > 10_000) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
}

async function closedPort(): Promise<number> {
	const probe = createServer();
	await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
	const address = probe.address();
	await new Promise((resolve) => probe.close(resolve));
	if (address === null || typeof address !== "object") throw new Error("no port");
	return address.port;
}

describe("a connection opened ahead", () => {
	it("is the one the first request to its origin goes out on", async () => {
		const server = await startServer();
		await preconnect(`${server.origin}/v1`);
		expect(heldConnections()).toBe(1);
		await server.connected(1);
		expect(server.requests).toEqual([]);

		expect(await ask(server)).toContain("message_stop");
		expect(server.requests.map((request) => request.connection)).toEqual([1]);
		expect(server.connections).toBe(1);
		expect(heldConnections()).toBe(0);
	});

	it("is taken while it is still opening", async () => {
		const server = await startServer();
		// No wait: the request comes before the connection is up, and goes out on it once it is.
		await preconnect(server.origin, 0);
		expect(heldConnections()).toBe(1);
		expect(await ask(server)).toContain("message_stop");
		expect(server.requests.map((request) => request.connection)).toEqual([1]);
		expect(server.connections).toBe(1);
	});

	it("is not opened when the pool has a connection to the origin already", async () => {
		const server = await startServer();
		await ask(server);
		await preconnect(server.origin);
		expect(heldConnections()).toBe(0);
		await ask(server);
		expect(server.requests.map((request) => request.connection)).toEqual([1, 1]);
		expect(server.connections).toBe(1);
	});

	it("is dropped when the server closes it, and the request connects anew", async () => {
		const server = await startServer();
		await preconnect(server.origin);
		await server.connected(1);
		server.dropConnections();
		await until(() => heldConnections() === 0, "the closed connection to be dropped");

		expect(await ask(server)).toContain("message_stop");
		expect(server.requests.map((request) => request.connection)).toEqual([2]);
	});

	it("rejects with the system error when nothing listens, and holds nothing", async () => {
		const port = await closedPort();
		await expect(preconnect(`http://127.0.0.1:${port}`)).rejects.toThrow(/ECONNREFUSED/);
		expect(heldConnections()).toBe(0);
	});

	it("verifies the server's certificate as a request would", async () => {
		const server = await startServer({ tls: TLS });
		// This process does not trust the test certificate (the RPC test passes it to the agent).
		await expect(preconnect(server.origin)).rejects.toThrow(/self[- ]signed certificate/);
		expect(heldConnections()).toBe(0);
	});

	it("is not opened for a URL that is not http(s), or not a URL", async () => {
		await preconnect("ftp://127.0.0.1/");
		await preconnect("not a url");
		await preconnect("file:///etc/passwd");
		expect(heldConnections()).toBe(0);
	});

	it("keeps no process alive", async () => {
		const server = await startServer();
		const fixture = fileURLToPath(new URL("./fixtures/preconnect-alone.ts", import.meta.url));
		const jiti = fileURLToPath(new URL("../../node_modules/jiti/lib/jiti-cli.mjs", import.meta.url));
		// The process ends by itself once its work is done; one that a connection kept alive is killed at the timeout.
		const { stdout } = await run(process.execPath, [jiti, fixture, server.origin], { timeout: 30_000 });
		expect(stdout.trim()).toBe("held 1");
		expect(server.connections).toBe(1);
	}, 60_000);
});
