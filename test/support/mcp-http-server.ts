/**
 * The test MCP server (mcp-server.ts) over HTTP on loopback, in the test process: streamable HTTP
 * at `/mcp` (stateful sessions) and the older HTTP with SSE at `/sse` + `/messages`. With a
 * `token`, every request must carry `Authorization: Bearer <token>` (else 401). Events of every
 * session are collected in `events`, and `waitForEvent` waits for one.
 *
 *   const http = await McpHttpServer.start({ token: "secret" });
 *   // {"type": "http", "url": http.url, "headers": {"Authorization": "Bearer secret"}}
 *   await http.close();
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createTestMcpServer, type TestMcpEvent } from "./mcp-server.js";

export class McpHttpServer {
	readonly events: TestMcpEvent[] = [];
	private readonly waiters = new Set<() => void>();
	private readonly streamable = new Map<string, StreamableHTTPServerTransport>();
	private readonly sse = new Map<string, SSEServerTransport>();
	private readonly sockets = new Set<Socket>();
	private origin = "";

	private constructor(
		private readonly server: Server,
		private readonly token: string | undefined,
	) {
		server.on("connection", (socket: Socket) => {
			this.sockets.add(socket);
			socket.on("close", () => this.sockets.delete(socket));
		});
		server.on("request", (request: IncomingMessage, response: ServerResponse) => {
			this.handle(request, response).catch((error: unknown) => {
				if (!response.headersSent) response.writeHead(500);
				response.end(String(error));
			});
		});
	}

	static async start(options: { token?: string } = {}): Promise<McpHttpServer> {
		const http = new McpHttpServer(createServer(), options.token);
		await new Promise<void>((resolve) => http.server.listen(0, "127.0.0.1", resolve));
		http.origin = `http://127.0.0.1:${(http.server.address() as AddressInfo).port}`;
		return http;
	}

	/** The streamable HTTP endpoint. */
	get url(): string {
		return `${this.origin}/mcp`;
	}

	/** The SSE endpoint. */
	get sseUrl(): string {
		return `${this.origin}/sse`;
	}

	/** Resolves with the first event (already seen or still to come) matching the predicate. */
	waitForEvent(predicate: (event: TestMcpEvent) => boolean, timeout = 10_000): Promise<TestMcpEvent> {
		return new Promise((resolve, reject) => {
			const check = () => {
				const found = this.events.find(predicate);
				if (!found) return;
				done();
				resolve(found);
			};
			const timer = setTimeout(() => {
				done();
				reject(new Error(`no such MCP event within ${timeout} ms; seen: ${JSON.stringify(this.events)}`));
			}, timeout);
			const done = () => {
				clearTimeout(timer);
				this.waiters.delete(check);
			};
			this.waiters.add(check);
			check();
		});
	}

	async close(): Promise<void> {
		for (const transport of [...this.streamable.values(), ...this.sse.values()]) await transport.close();
		for (const socket of this.sockets) socket.destroy();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}

	private newServer() {
		return createTestMcpServer({
			onEvent: (event) => {
				this.events.push(event);
				for (const waiter of [...this.waiters]) waiter();
			},
		});
	}

	private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
		if (this.token !== undefined && request.headers.authorization !== `Bearer ${this.token}`) {
			response.writeHead(401, { "content-type": "text/plain" });
			response.end("missing or wrong bearer token");
			return;
		}
		const url = new URL(request.url ?? "/", this.origin);
		if (url.pathname === "/mcp") return this.handleStreamable(request, response);
		if (url.pathname === "/sse" && request.method === "GET") {
			const transport = new SSEServerTransport("/messages", response);
			this.sse.set(transport.sessionId, transport);
			transport.onclose = () => this.sse.delete(transport.sessionId);
			await this.newServer().connect(transport);
			return;
		}
		if (url.pathname === "/messages" && request.method === "POST") {
			const transport = this.sse.get(url.searchParams.get("sessionId") ?? "");
			if (!transport) {
				response.writeHead(404).end("unknown session");
				return;
			}
			await transport.handlePostMessage(request, response);
			return;
		}
		response.writeHead(404).end("not found");
	}

	private async handleStreamable(request: IncomingMessage, response: ServerResponse): Promise<void> {
		const sessionId = request.headers["mcp-session-id"];
		const existing = typeof sessionId === "string" ? this.streamable.get(sessionId) : undefined;
		if (existing) return existing.handleRequest(request, response);
		if (sessionId !== undefined) {
			response.writeHead(404).end("unknown session");
			return;
		}
		const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
			sessionIdGenerator: () => randomUUID(),
			onsessioninitialized: (id) => {
				this.streamable.set(id, transport);
			},
		});
		transport.onclose = () => {
			if (transport.sessionId) this.streamable.delete(transport.sessionId);
		};
		await this.newServer().connect(transport);
		await transport.handleRequest(request, response);
	}
}
