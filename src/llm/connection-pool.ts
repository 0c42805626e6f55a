import { type ClientRequestArgs, Agent as HttpAgent } from "node:http";
import type { Agent as HttpsAgent, RequestOptions as HttpsRequestOptions } from "node:https";
import { isIP, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { httpsModule } from "../platform/lazy-builtins.js";

type ConnectionCallback = (error: Error | null, stream: Duplex) => void;

const AGENT_OPTIONS = { keepAlive: true };

/**
 * How long a held connection may wait to be taken. A connection can look open long after it died:
 * a laptop's sleep or a NAT's idle timeout drops it without a word to either end. An older one is
 * closed and the request connects as it would have. Wall-clock time: it runs on during a sleep.
 */
export const HELD_MAX_AGE_MS = 30_000;

/** A connection opened ahead of the first request to its origin, waiting to be taken. */
interface Held {
	socket: Socket;
	/** Date.now() when it was opened. */
	openedAt: number;
	/** The TLS server name it was opened with (https), as the request's would be. */
	servername: string | undefined;
	/** Removes the listeners that watch it while it waits. */
	release(): void;
}

/** By `scheme//host:port`. A connection leaves when a request takes it, or when it closes or fails. */
const held = new Map<string, Held>();

/** Sockets that were held before a request took them (see wasOpenBefore). */
const taken = new WeakSet<Socket>();

function originKey(protocol: string, host: string | null | undefined, port: string | number | null | undefined) {
	return `${protocol}//${host ?? ""}:${String(port ?? "")}`;
}

/**
 * The connection held for the origin a new connection is being made to, if it is still usable:
 * open (or still opening), not ended by the server, younger than HELD_MAX_AGE_MS, and made for
 * the same TLS server name.
 */
function takeHeld(protocol: string, options: ClientRequestArgs & { servername?: string | null }): Socket | undefined {
	const key = originKey(protocol, options.host, options.port);
	const entry = held.get(key);
	if (!entry) return undefined;
	held.delete(key);
	entry.release();
	const { socket } = entry;
	const sameName = protocol !== "https:" || (options.servername || undefined) === entry.servername;
	const fresh = Date.now() - entry.openedAt < HELD_MAX_AGE_MS;
	if (socket.destroyed || !socket.writable || socket.readableEnded || !sameName || !fresh) {
		socket.destroy();
		return undefined;
	}
	socket.ref();
	taken.add(socket);
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
			openedAt: Date.now(),
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

/**
 * Whether a request's socket was open before the request: opened ahead (held), or kept alive
 * from an earlier request (`reusedSocket`). Such a connection may have died unnoticed; a fresh one
 * cannot have.
 */
export function wasOpenBefore(socket: Socket | null, reusedSocket: boolean): boolean {
	return reusedSocket || (socket !== null && taken.has(socket));
}

/**
 * Closes the pool's idle connections to `host:port`: after one of them failed, the others, opened
 * as long ago, are as likely dead.
 */
export function dropIdleConnections(target: URL): void {
	const secure = target.protocol === "https:";
	const host = target.hostname.startsWith("[") ? target.hostname.slice(1, -1) : target.hostname;
	const port = target.port === "" ? (secure ? 443 : 80) : Number(target.port);
	const agent = secure ? httpsAgent : httpAgent;
	if (!agent) return;
	const prefix = `${host}:${port}:`;
	for (const [name, sockets] of Object.entries(agent.freeSockets)) {
		if (name.startsWith(prefix)) for (const socket of sockets ?? []) socket.destroy();
	}
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
