import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { closeHeldConnections, HELD_MAX_AGE_MS, heldConnections, preconnect } from "../../src/llm/connection-pool.js";
import { providerFetch } from "../../src/llm/http-transport.js";

/**
 * A server that numbers its connections and, for each request, does what `answer` says: reply, drop
 * the connection without a byte (a connection that died unnoticed looks like this to the client),
 * or start a reply and then drop it.
 */
type Answer = "reply" | "drop" | "drop-mid-reply";

interface TestServer {
	origin: string;
	/** The connection number of each request received, in order. */
	requests: number[];
	connections: number;
	close(): Promise<void>;
}

const servers: Server[] = [];
afterEach(async () => {
	vi.useRealTimers();
	closeHeldConnections();
	for (const server of servers.splice(0)) {
		server.closeAllConnections();
		await new Promise((resolve) => server.close(resolve));
	}
});

async function startServer(answer: (request: number, connection: number) => Answer): Promise<TestServer> {
	const numbers = new WeakMap<Socket, number>();
	const state = { requests: [] as number[], connections: 0 };
	const server = createServer((request: IncomingMessage, response: ServerResponse) => {
		const connection = numbers.get(request.socket) ?? 0;
		state.requests.push(connection);
		request.resume();
		request.on("end", () => {
			const what = answer(state.requests.length, connection);
			if (what === "drop") request.socket.destroy();
			else if (what === "drop-mid-reply") {
				response.writeHead(200, { "content-type": "text/plain" });
				response.write("partial");
				setImmediate(() => request.socket.destroy());
			} else response.end("ok");
		});
	});
	server.on("connection", (socket: Socket) => {
		state.connections++;
		numbers.set(socket, state.connections);
	});
	servers.push(server);
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const address = server.address();
	if (address === null || typeof address !== "object") throw new Error("no port");
	return {
		origin: `http://127.0.0.1:${address.port}`,
		get requests() {
			return state.requests;
		},
		get connections() {
			return state.connections;
		},
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}

async function post(server: TestServer): Promise<string> {
	const response = await providerFetch(`${server.origin}/v1/messages`, { method: "POST", body: "{}" });
	return response.text();
}

describe("a connection that may have died unnoticed", () => {
	it("is not taken once held longer than HELD_MAX_AGE_MS: the request connects anew", async () => {
		const server = await startServer(() => "reply");
		vi.useFakeTimers({ toFake: ["Date"] });
		await preconnect(server.origin);
		expect(heldConnections()).toBe(1);
		vi.setSystemTime(Date.now() + HELD_MAX_AGE_MS + 1000);
		expect(await post(server)).toBe("ok");
		expect(server.requests).toEqual([2]);
		expect(heldConnections()).toBe(0);
	});

	it("is taken while younger than that", async () => {
		const server = await startServer(() => "reply");
		vi.useFakeTimers({ toFake: ["Date"] });
		await preconnect(server.origin);
		vi.setSystemTime(Date.now() + HELD_MAX_AGE_MS - 1000);
		expect(await post(server)).toBe("ok");
		expect(server.requests).toEqual([1]);
	});

	it("held: a request it fails before any byte of the response is sent once more, on a new connection", async () => {
		const server = await startServer((_request, connection) => (connection === 1 ? "drop" : "reply"));
		await preconnect(server.origin);
		expect(await post(server)).toBe("ok");
		expect(server.requests).toEqual([1, 2]);
	});

	it("kept alive from an earlier request: the same", async () => {
		const server = await startServer((request) => (request === 2 ? "drop" : "reply"));
		expect(await post(server)).toBe("ok");
		expect(await post(server)).toBe("ok");
		// The second request went out on the kept-alive connection 1, which failed; it was sent on 2.
		expect(server.requests).toEqual([1, 1, 2]);
	});

	it("is sent again only once", async () => {
		const server = await startServer(() => "drop");
		await preconnect(server.origin);
		await expect(post(server)).rejects.toThrow("fetch failed");
		expect(server.requests).toEqual([1, 2]);
	});

	it("a new connection's failure is not sent again: nothing says it was stale", async () => {
		const server = await startServer(() => "drop");
		await expect(post(server)).rejects.toThrow("fetch failed");
		expect(server.requests).toEqual([1]);
	});

	it("a failure after the response began is not sent again: the server answered", async () => {
		const server = await startServer((request) => (request === 1 ? "reply" : "drop-mid-reply"));
		expect(await post(server)).toBe("ok");
		await expect(post(server)).rejects.toThrow();
		expect(server.requests).toEqual([1, 1]);
	});
});
