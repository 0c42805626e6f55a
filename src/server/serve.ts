import { createServer, type IncomingMessage, type Server } from "node:http";
import type { Duplex } from "node:stream";
import { type RawData, type WebSocket, WebSocketServer } from "ws";
import type { AgentSession } from "../runtime/facade/agent-session.js";
import { ServerAuth } from "./auth.js";
import { Client } from "./client.js";
import { DEFAULT_REPLAY_LIMITS, type ReplayLimits } from "./event-log.js";
import { serveHttp } from "./http-routes.js";
import { LiveSession } from "./live-session.js";
import type { StoredToken } from "./tokens.js";

export interface ServeOptions {
	host: string;
	port: number;
	/** The folder new sessions start in when `attach` names none. */
	cwd: string;
	agentDir: string;
	version: string;
	/** Makes a session (a new one when `sessionId` is undefined, else that stored one). */
	createSession(request: {
		cwd: string;
		sessionId?: string;
		approve: LiveSession["approvals"]["handler"];
	}): AgentSession;
	/** Largest frame accepted (default 64 MiB). */
	maxFrameBytes?: number;
	/** Bytes a client may have waiting before it is closed as too slow (default 16 MiB). */
	sendQueueBytes?: number;
	/** Origins besides the server's own whose pages may connect. */
	allowOrigins?: string[];
	replayLimits?: ReplayLimits;
	/** Where lines about the server go (stderr). */
	log?(line: string): void;
}

/** Commands that only read, the ones an observer may send. */
const SERVER_COMMANDS = new Set(["list_sessions", "attach", "detach"]);
const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

function observerMay(type: string): boolean {
	return type.startsWith("get_") || SERVER_COMMANDS.has(type);
}

/** The `type` and `id` of a record's text, or why it is not a command object. */
function peek(text: string): { ok: true; type: string; id?: unknown; record: Record<string, unknown> } | { ok: false } {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return { ok: false };
	}
	if (typeof value !== "object" || value === null || Array.isArray(value)) return { ok: false };
	if (!("type" in value) || typeof value.type !== "string") return { ok: false };
	const record: Record<string, unknown> = { ...value };
	return { ok: true, type: value.type, id: "id" in value ? value.id : undefined, record };
}

/**
 * `atomic serve`: several clients on the sessions of one process, over WebSocket (`/ws`), each
 * frame one record of RPC mode. Every event carries the session's `seq`; `attach` with
 * `afterSeq` replays what a client missed, or sends `resync`. Every connection needs a token
 * (`atomic token create`); observers may only read. docs/server.md has the protocol.
 */
export class AtomicServer {
	private readonly http: Server;
	private readonly sockets: WebSocketServer;
	private readonly sessions = new Map<LiveSession, true>();
	private readonly auth: ServerAuth;
	private readonly log: (line: string) => void;

	constructor(private readonly options: ServeOptions) {
		this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
		this.auth = new ServerAuth(options.agentDir, options.allowOrigins ?? [], this.log);
		this.sockets = new WebSocketServer({ noServer: true, maxPayload: options.maxFrameBytes ?? 64 * 1024 * 1024 });
		this.http = createServer((request, response) => serveHttp(request, response, options.version));
		this.http.on("upgrade", (request, socket, head) => this.upgrade(request, socket, head));
	}

	/** Listens; resolves with the port. */
	listen(): Promise<number> {
		return new Promise((resolve, reject) => {
			this.http.once("error", reject);
			this.http.listen(this.options.port, this.options.host, () => {
				const address = this.http.address();
				const port = typeof address === "object" && address ? address.port : this.options.port;
				if (!LOOPBACK.has(this.options.host)) {
					this.log(
						`Warning: listening on ${this.options.host} without TLS: tokens and everything the agent does cross the network in clear text`,
					);
				}
				if (this.auth.tokens.list().length === 0) {
					this.log("Warning: no tokens yet: every connection is refused until one is made (atomic token create)");
				}
				this.log(`atomic serve: ws://${this.options.host}:${port}/ws`);
				resolve(port);
			});
		});
	}

	/** Closes every connection with 1001 and every session; resolves once all is written. */
	async close(): Promise<void> {
		for (const socket of this.sockets.clients) socket.close(1001, "server shutting down");
		await Promise.all([...this.sessions.keys()].map((live) => live.dispose()));
		this.sessions.clear();
		await new Promise<void>((resolve) => this.http.close(() => resolve()));
		this.sockets.close();
	}

	private refuse(socket: Duplex, status: number, text: string): void {
		socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\n\r\n${text}\n`);
	}

	private upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
		socket.on("error", () => socket.destroy());
		if ((request.url ?? "").split("?")[0] !== "/ws") {
			this.refuse(socket, 404, "Not Found");
			return;
		}
		const auth = this.auth.check(request);
		if (!auth.ok) {
			this.refuse(socket, auth.status, auth.text);
			return;
		}
		this.sockets.handleUpgrade(request, socket, head, (ws) => this.connected(ws, auth.token));
	}

	private connected(socket: WebSocket, token: StoredToken): void {
		const client = new Client(socket, token, this.options.sendQueueBytes ?? 16 * 1024 * 1024);
		socket.on("message", (data: RawData, isBinary: boolean) => this.received(client, data, isBinary));
		socket.on("close", () => client.live?.detach(client));
		socket.on("error", () => socket.terminate());
	}

	private received(client: Client, data: RawData, isBinary: boolean): void {
		if (isBinary) {
			client.sendError("parse", "Binary frames are not records: send each record as one text frame");
			return;
		}
		const bytes = Array.isArray(data)
			? Buffer.concat(data)
			: Buffer.isBuffer(data)
				? data
				: Buffer.from(new Uint8Array(data));
		const text = bytes.toString("utf8");
		const command = peek(text);
		if (command.ok && client.token.role === "observer" && !observerMay(command.type)) {
			client.sendError(
				command.type,
				`The token "${client.token.name}" is an observer's: it may read (get_*, list_sessions, attach, detach), not "${command.type}"`,
				command.id,
			);
			return;
		}
		if (command.ok && SERVER_COMMANDS.has(command.type)) {
			this.serverCommand(client, command.type, command.record, command.id);
			return;
		}
		if (!client.live) {
			const type = command.ok ? command.type : "parse";
			client.sendError(type, "Not attached to a session: send attach first", command.ok ? command.id : undefined);
			return;
		}
		const answers = command.ok && command.type === "tool_approval_response" ? command.record.requestId : undefined;
		client.live.handle(
			{ ok: true, text },
			client.sink,
			client.token.name,
			typeof answers === "string" ? answers : undefined,
		);
	}

	private serverCommand(client: Client, type: string, record: Record<string, unknown>, id: unknown): void {
		const respond = (data?: unknown) => {
			const response: Record<string, unknown> = { type: "response", command: type, success: true };
			if (id !== undefined) response.id = id;
			if (data !== undefined) response.data = data;
			client.sendText(JSON.stringify(response));
		};
		try {
			if (type === "list_sessions") {
				respond({ sessions: [...this.sessions.keys()].map((live) => this.describe(live)) });
			} else if (type === "detach") {
				client.live?.detach(client);
				client.live = undefined;
				respond();
			} else this.attach(client, record, respond);
		} catch (error) {
			client.sendError(type, error instanceof Error ? error.message : String(error), id);
		}
	}

	private describe(live: LiveSession) {
		const state = live.session.getState();
		return {
			id: state.sessionId,
			name: state.sessionName ?? null,
			cwd: live.session.cwd,
			file: state.sessionFile ?? null,
			live: true,
			streaming: state.isStreaming,
			attached: live.attachedCount,
		};
	}

	private attach(client: Client, record: Record<string, unknown>, respond: (data: unknown) => void): void {
		const { sessionId, cwd, afterSeq } = record;
		if (sessionId !== null && typeof sessionId !== "string") {
			throw new Error('attach needs "sessionId": a session id, or null for a new session');
		}
		if (cwd !== undefined && typeof cwd !== "string") throw new Error('"cwd" must be a string');
		if (afterSeq !== undefined && (typeof afterSeq !== "number" || !Number.isInteger(afterSeq) || afterSeq < 0)) {
			throw new Error('"afterSeq" must be a whole number >= 0');
		}
		const live = sessionId === null ? this.open(cwd) : this.find(sessionId, cwd);
		client.live?.detach(client);
		client.live = live;
		respond({ sessionId: live.id, seq: live.log.seq, state: live.session.getState() });
		const replayed = live.attach(client, afterSeq);
		if (!replayed) {
			const resync = {
				type: "resync",
				sessionId: live.id,
				seq: live.log.seq,
				state: live.session.getState(),
				messages: live.session.messages,
			};
			client.sendText(JSON.stringify(resync));
		}
		// Open approvals are asked of a client that could not have seen them (a replay holds them).
		if (!replayed || afterSeq === undefined) live.sendPending(client);
	}

	private open(cwd: string | undefined, sessionId?: string): LiveSession {
		let made: LiveSession | undefined;
		const session = this.options.createSession({
			cwd: cwd ?? this.options.cwd,
			sessionId,
			approve: (request, signal) => {
				if (!made) throw new Error("the session is not ready");
				return made.approvals.handler(request, signal);
			},
		});
		made = new LiveSession(session, this.options.replayLimits ?? DEFAULT_REPLAY_LIMITS);
		this.sessions.set(made, true);
		return made;
	}

	private find(sessionId: string, cwd: string | undefined): LiveSession {
		for (const live of this.sessions.keys()) if (live.id === sessionId) return live;
		// Not live: opened from its file (a session of an earlier run of the server).
		return this.open(cwd, sessionId);
	}
}
