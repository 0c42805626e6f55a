import { type ClientRequestArgs, Agent as HttpAgent } from "node:http";
import type { Agent as HttpsAgent, RequestOptions as HttpsRequestOptions } from "node:https";
import { isIP, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { httpsModule } from "../platform/lazy-builtins.js";

type ConnectionCallback = (error: Error | null, stream: Duplex) => void;

const AGENT_OPTIONS = { keepAlive: true };

/** A connection opened ahead of the first request to its origin, waiting to be taken. */
interface Held {
	socket: Socket;
	/** The TLS server name it was opened with (https), as the request's would be. */
	servername: string | undefined;
	/** Removes the listeners that watch it while it waits. */
	release(): void;
}

/** By `scheme//host:port`. A connection leaves when a request takes it, or when it closes or fails. */
const held = new Map<string, Held>();

function originKey(protocol: string, host: string | null | undefined, port: string | number | null | undefined) {
	return `${protocol}//${host ?? ""}:${String(port ?? "")}`;
}

/**
 * The connection held for the origin a new connection is being made to, if it is still usable:
 * open (or still opening), not ended by the server, and made for the same TLS server name.
 */
function takeHeld(protocol: string, options: ClientRequestArgs & { servername?: string | null }): Socket | undefined {
	const key = originKey(protocol, options.host, options.port);
	const entry = held.get(key);
	if (!entry) return undefined;
	held.delete(key);
	entry.release();
	const { socket } = entry;
	const sameName = protocol !== "https:" || (options.servername || undefined) === entry.servername;
	if (socket.destroyed || !socket.writable || socket.readableEnded || !sameName) {
		socket.destroy();
		return undefined;
	}
	socket.ref();
	return socket;
}

/** The pool of `http:` connections: Node's keep-alive agent, which first takes a held connection. */
class PooledHttpAgent extends HttpAgent {
	override createConnection(options: ClientRequestArgs, callback?: ConnectionCallback): Duplex | null | undefined {
		return takeHeld("http:", options) ?? super.createConnection(options, callback);
	}

	/** A new connection as this agent would make it, bypassing the held ones. */
	open(options: ClientRequestArgs): Duplex | null | undefined {
		return super.createConnection(options);
	}
}

interface PooledHttps extends HttpsAgent {
	open(options: HttpsRequestOptions): Duplex | null | undefined;
}

function pooledHttpsAgent(): PooledHttps {
	class PooledHttpsAgent extends httpsModule().Agent {
		override createConnection(options: HttpsRequestOptions, callback?: ConnectionCallback): Duplex | null | undefined {
			return takeHeld("https:", options) ?? super.createConnection(options, callback);
		}

		open(options: HttpsRequestOptions): Duplex | null | undefined {
			return super.createConnection(options);
		}
	}
	return new PooledHttpsAgent(AGENT_OPTIONS);
}

let httpAgent: PooledHttpAgent | undefined;
let httpsAgent: PooledHttps | undefined;

/** The keep-alive pool for a URL's scheme (`http:` or `https:`). */
export function agentFor(target: URL): HttpAgent | HttpsAgent {
	return target.protocol === "http:" ? pooledHttp() : pooledHttps();
}

function pooledHttp(): PooledHttpAgent {
	httpAgent ??= new PooledHttpAgent(AGENT_OPTIONS);
	return httpAgent;
}

function pooledHttps(): PooledHttps {
	httpsAgent ??= pooledHttpsAgent();
	return httpsAgent;
}

/** How long `preconnect` waits for the connection before it resolves (it stays held after). */
export const PRECONNECT_WAIT_MS = 1000;

/**
 * Opens one connection to the origin of `url` (TCP, and TLS for https) and holds it for the pool:
 * the first request to that origin then goes out on it instead of connecting first. Nothing is
 * sent on it. It is unreferenced while held (it keeps no process alive) and dropped when the
 * server closes it or it fails; a request after that connects as it would have. Resolves once it
 * is open, or after `waitMs`; rejects when it cannot be opened. Does nothing when one is held or
 * the URL is not http(s).
 */
export function preconnect(url: string, waitMs = PRECONNECT_WAIT_MS): Promise<void> {
	const target = URL.canParse(url) ? new URL(url) : undefined;
	if (!target || (target.protocol !== "http:" && target.protocol !== "https:")) return Promise.resolve();
	const secure = target.protocol === "https:";
	// As the HTTP client reads a URL: an IPv6 host without its brackets, the scheme's port by default.
	const host = target.hostname.startsWith("[") ? target.hostname.slice(1, -1) : target.hostname;
	const port = target.port === "" ? (secure ? 443 : 80) : Number(target.port);
	const key = originKey(target.protocol, host, port);
	const agent = secure ? pooledHttps() : pooledHttp();
	if (held.has(key) || pooled(agent, host, port)) return Promise.resolve();
	const servername = secure && isIP(host) === 0 ? host : undefined;
	// The options the agent itself would connect with (Node adds noDelay to the agent's own).
	const options = { ...AGENT_OPTIONS, noDelay: true, host, port };
	const socket = secure ? pooledHttps().open({ ...options, servername }) : pooledHttp().open(options);
	if (!(socket instanceof Socket)) return Promise.reject(new Error("the agent made no socket"));
	socket.unref();
	return new Promise((resolve, reject) => {
		const ready = secure ? "secureConnect" : "connect";
		const wait = setTimeout(resolve, waitMs);
		wait.unref();
		const onReady = () => {
			clearTimeout(wait);
			resolve();
		};
		const onError = (error: Error) => {
			drop();
			clearTimeout(wait);
			reject(error);
		};
		const drop = () => {
			if (held.get(key)?.socket === socket) held.delete(key);
			entry.release();
			socket.destroy();
		};
		const entry: Held = {
			socket,
			servername,
			release() {
				socket.off(ready, onReady);
				socket.off("error", onError);
				socket.off("close", drop);
			},
		};
		socket.once(ready, onReady);
		socket.on("error", onError);
		socket.once("close", drop);
		held.set(key, entry);
	});
}

/** Whether the pool has a connection to `host:port` already, in use or free (Node names them `host:port:…`). */
function pooled(agent: HttpAgent, host: string, port: number): boolean {
	const prefix = `${host}:${port}:`;
	return [agent.sockets, agent.freeSockets].some((byName) =>
		Object.keys(byName).some((name) => name.startsWith(prefix)),
	);
}

/** Closes the held connections (tests; a process that ends drops them anyway). */
export function closeHeldConnections(): void {
	for (const entry of [...held.values()]) {
		entry.release();
		entry.socket.destroy();
	}
	held.clear();
}

/** How many connections are held (tests, diagnostics). */
export function heldConnections(): number {
	return held.size;
}
