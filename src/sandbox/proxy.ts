import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { errorMessage } from "../platform/errors.js";
import { hostAllowed } from "./host-patterns.js";
import { PROXY_SOCKET_NAME } from "./proxy-bridge.js";

/** The words a refused host gets (the sandbox's denial detection reads them back). */
export function refusalText(host: string): string {
	return `atomic sandbox: ${host} is not on the network allow-list\n`;
}

/** `host:port` of a CONNECT target, or undefined when it is not one. */
function connectTarget(target: string | undefined): { host: string; port: number } | undefined {
	const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(target ?? "");
	if (!match?.[1] || !match[2]) return undefined;
	const port = Number(match[2]);
	return port > 0 && port < 65536 ? { host: match[1].replace(/^\[|\]$/g, ""), port } : undefined;
}

/**
 * The network allow-list of a sandbox: an HTTP proxy on a Unix socket that commands reach through
 * `HTTP_PROXY`/`HTTPS_PROXY`/`ALL_PROXY` (a bridge inside the sandbox forwards its loopback port
 * to the socket). It tunnels CONNECT and forwards plain HTTP to allowed hosts only; any other
 * host gets 403 with refusalText. Names are resolved here, outside the sandbox.
 */
export class AllowListProxy {
	private readonly server: Server;
	private readonly sockets = new Set<Socket>();
	readonly folder: string;
	private readonly listening: Promise<void>;
	/** Hosts refused so far, in order (the last ones only). */
	private readonly refused: string[] = [];
	private refusedCount = 0;
	private readonly removeFolder = () => rmSync(this.folder, { recursive: true, force: true });

	constructor(private readonly patterns: readonly string[]) {
		this.folder = mkdtempSync(join(tmpdir(), "atomic-proxy-"));
		this.server = createServer((request, response) => this.forward(request, response));
		this.server.on("connect", (request: IncomingMessage, client: Socket, head: Buffer) =>
			this.tunnel(request, client, head),
		);
		this.server.on("connection", (socket: Socket) => {
			this.sockets.add(socket);
			socket.on("close", () => this.sockets.delete(socket));
		});
		this.server.unref();
		process.once("exit", this.removeFolder);
		this.listening = new Promise((resolve, reject) => {
			this.server.once("error", reject);
			this.server.listen(join(this.folder, PROXY_SOCKET_NAME), () => resolve());
		});
	}

	/** Resolves once the socket accepts connections. */
	ready(): Promise<void> {
		return this.listening;
	}

	close(): void {
		for (const socket of this.sockets) socket.destroy();
		this.server.close();
		process.removeListener("exit", this.removeFolder);
		this.removeFolder();
	}

	/** How many hosts were refused so far: a mark for `refusedSince`. */
	get mark(): number {
		return this.refusedCount;
	}

	/** The hosts refused since `mark` (each once). */
	refusedSince(mark: number): string[] {
		const kept = this.refused.length - (this.refusedCount - mark);
		return [...new Set(this.refused.slice(Math.max(0, kept)))];
	}

	private refuse(host: string): string {
		this.refusedCount++;
		this.refused.push(host);
		if (this.refused.length > 100) this.refused.shift();
		return refusalText(host);
	}

	private tunnel(request: IncomingMessage, client: Socket, head: Buffer): void {
		const target = connectTarget(request.url);
		client.on("error", () => client.destroy());
		if (!target) {
			client.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\nCONNECT needs host:port\n");
			return;
		}
		if (!hostAllowed(target.host, this.patterns)) {
			const text = this.refuse(target.host);
			client.end(
				`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
			);
			return;
		}
		const upstream = connect(target.port, target.host, () => {
			client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
			if (head.length > 0) upstream.write(head);
			upstream.pipe(client);
			client.pipe(upstream);
		});
		upstream.on("error", (error) => {
			if (client.writable && upstream.connecting) {
				client.end(`HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n${errorMessage(error)}\n`);
			} else client.destroy();
		});
		client.on("close", () => upstream.destroy());
	}

	private forward(request: IncomingMessage, response: import("node:http").ServerResponse): void {
		let url: URL;
		try {
			url = new URL(request.url ?? "");
		} catch (error) {
			response.writeHead(400, { "Content-Type": "text/plain" }).end(`Not a proxy request: ${errorMessage(error)}\n`);
			return;
		}
		if (url.protocol !== "http:") {
			response
				.writeHead(400, { "Content-Type": "text/plain" })
				.end("Only http:// is forwarded; use CONNECT for https\n");
			return;
		}
		if (!hostAllowed(url.hostname, this.patterns)) {
			response.writeHead(403, { "Content-Type": "text/plain" }).end(this.refuse(url.hostname));
			return;
		}
		const headers = { ...request.headers };
		delete headers["proxy-connection"];
		delete headers["proxy-authorization"];
		const upstream = httpRequest(
			{
				host: url.hostname,
				port: url.port || 80,
				path: `${url.pathname}${url.search}`,
				method: request.method,
				headers,
			},
			(reply) => {
				response.writeHead(reply.statusCode ?? 502, reply.headers);
				reply.pipe(response);
			},
		);
		upstream.on("error", (error) => {
			if (!response.headersSent) response.writeHead(502, { "Content-Type": "text/plain" });
			response.end(`${errorMessage(error)}\n`);
		});
		request.pipe(upstream);
	}
}
