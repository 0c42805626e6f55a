import type { IncomingMessage, Server } from "node:http";
import { resolve } from "node:path";
import type { Duplex } from "node:stream";
import { type RawData, type WebSocket, WebSocketServer } from "ws";
import { COMMANDS, type Command, type CommandOf } from "../rpc/protocol/commands.js";
import { SCHEMA_PROTOCOL_VERSION as PROTOCOL_VERSION } from "../rpc/protocol/event-schemas.js";
import { loadValidator, parseInput } from "../rpc/protocol/validate.js";
import { listSessionSummaries, liveSummary } from "../rpc/session-summaries.js";
import type { AgentSession } from "../runtime/facade/agent-session.js";
import type { SessionInfo } from "../session/listing.js";
import { ServerAuth } from "./auth.js";
import { Client } from "./client.js";
import { DEFAULT_REPLAY_LIMITS, type ReplayLimits } from "./event-log.js";
import { serveHttp } from "./http-routes.js";
import { LiveSession, type SessionHooks } from "./live-session.js";
import { WebLogin } from "./login.js";
import { type KeptSession, ServerState } from "./server-state.js";
import type { StoredToken } from "./tokens.js";
import { createListener, type TlsCredentials } from "./transport.js";

export interface ServeOptions {
	host: string;
	port: number;
	/** The folder new sessions start in when `attach` names none. */
	cwd: string;
	agentDir: string;
	version: string;
	/**
	 * Makes a session (a new one when `sessionId` is undefined, else that stored one), with the
	 * hooks its approvals and extension dialogs go through.
	 */
	createSession(request: { cwd: string; sessionId?: string } & SessionHooks): AgentSession;
	/** The stored sessions of a folder, for list_sessions (default: none). */
	storedSessions?(cwd: string): SessionInfo[];
	/** Largest frame accepted (default 64 MiB). */
	maxFrameBytes?: number;
	/** Bytes a client may have waiting before it is closed as too slow (default 16 MiB). */
	sendQueueBytes?: number;
	/** The built web page served at `/` (dist/web); undefined: none. */
	webRoot?: string;
	/** Origins besides the server's own whose pages may connect. */
	allowOrigins?: string[];
	replayLimits?: ReplayLimits;
	/** A session nobody attaches to (and that runs nothing) is unloaded after this long (default 15 min). */
	idleUnloadMs?: number;
	/** Serves https and wss with this certificate and key (PEM); the constructor throws when they cannot. */
	tls?: TlsCredentials;
	/** Whether to make and print a one-time login URL for a browser (default true). */
	loginUrl?: boolean;
	/** Where lines about the server go (stderr). */
	log?(line: string): void;
}

const DEFAULT_IDLE_UNLOAD_MS = 15 * 60_000;
/** How often the tokens file is looked at for revoked tokens (a stat; read only when it changed). */
const REVOCATION_CHECK_MS = 2000;
/** Close code for a connection whose token was revoked. */
export const CLOSE_REVOKED = 4003;

/** Commands the server answers itself; the rest go to the attached session. */
const SERVER_COMMANDS = new Set(["list_sessions", "attach", "detach"]);
const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** What an observer may send: the read commands and the server's own. */
function observerMay(type: string): boolean {
	return type.startsWith("get_") || SERVER_COMMANDS.has(type);
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
	private readonly login: WebLogin;
	private readonly log: (line: string) => void;
	private readonly state: ServerState;
	private readonly idleUnloadMs: number;
	private idleTimer: NodeJS.Timeout | undefined;
	private revocationTimer: NodeJS.Timeout | undefined;
	private readonly clients = new Set<Client>();

	constructor(private readonly options: ServeOptions) {
		this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
		this.state = new ServerState(options.agentDir, this.log);
		this.idleUnloadMs = options.idleUnloadMs ?? DEFAULT_IDLE_UNLOAD_MS;
		this.auth = new ServerAuth(options.agentDir, options.allowOrigins ?? [], this.log);
		this.sockets = new WebSocketServer({ noServer: true, maxPayload: options.maxFrameBytes ?? 64 * 1024 * 1024 });
		const { tls, loginUrl = true } = options;
		this.login = new WebLogin(this.auth, { secure: tls !== undefined, loginUrl, log: this.log });
		this.http = createListener(tls, (request, response) =>
			serveHttp(request, response, { version: options.version, login: this.login, webRoot: options.webRoot }),
		);
		this.http.on("upgrade", (request, socket, head) => this.upgrade(request, socket, head));
	}

	/** Listens; resolves with the port. */
	async listen(): Promise<number> {
		// Every frame is validated at once (no record waits for the validator to load).
		await loadValidator();
		this.resumeWaiting();
		this.idleTimer = setInterval(() => this.unloadIdle(), Math.min(this.idleUnloadMs / 4, 30_000));
		this.idleTimer.unref();
		this.revocationTimer = setInterval(() => this.closeRevoked(), REVOCATION_CHECK_MS);
		this.revocationTimer.unref();
		return new Promise((resolve, reject) => {
			this.http.once("error", reject);
			this.http.listen(this.options.port, this.options.host, () => {
				const address = this.http.address();
				const port = typeof address === "object" && address ? address.port : this.options.port;
				const tls = this.options.tls !== undefined;
				if (!tls && !LOOPBACK.has(this.options.host)) {
					this.log(
						`Warning: listening on ${this.options.host} without TLS: tokens and everything the agent does cross the network in clear text`,
					);
				}
				const login = this.login.loginPath();
				let tokens: number | undefined;
				try {
					tokens = this.auth.tokens.list().length;
				} catch (error) {
					this.log(`Warning: every token is refused: ${error instanceof Error ? error.message : String(error)}`);
				}
				if (tokens === 0) {
					const or = login === undefined ? "" : " or the login link below is opened";
					this.log(`Warning: no tokens yet: every connection is refused until one is made (atomic token create)${or}`);
				}
				// An IPv6 address is written in brackets in a URL.
				const host = this.options.host.includes(":") ? `[${this.options.host}]` : this.options.host;
				this.log(`atomic serve: ${tls ? "wss" : "ws"}://${host}:${port}/ws`);
				if (login !== undefined) {
					this.log(`Log in from a browser (the link works once): ${tls ? "https" : "http"}://${host}:${port}${login}`);
				}
				resolve(port);
			});
		});
	}

	/**
	 * Closes every connection with 1001 and every session; resolves once all is written. A session
	 * waiting for approvals is left resumable: the next start asks them again.
	 */
	async close(): Promise<void> {
		clearInterval(this.idleTimer);
		clearInterval(this.revocationTimer);
		for (const client of this.clients) client.close(1001, "server shutting down");
		const sessions = [...this.sessions.keys()];
		this.sessions.clear();
		this.keep(sessions, true);
		await Promise.all(sessions.map((live) => live.dispose(live.waitsForApproval)));
		// A client that does not answer the close (it stopped reading) is not waited for.
		for (const socket of this.sockets.clients) socket.terminate();
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
		this.sockets.handleUpgrade(request, socket, head, (ws) => this.connected(ws, socket, auth.token));
	}

	private connected(socket: WebSocket, raw: Duplex, token: StoredToken): void {
		const client = new Client(socket, raw, token, this.options.sendQueueBytes ?? 16 * 1024 * 1024);
		// As on stdio, the first record says who answers and what it takes.
		client.sendText(
			JSON.stringify({
				type: "ready",
				version: this.options.version,
				protocolVersion: PROTOCOL_VERSION,
				pid: process.pid,
				capabilities: Object.keys(COMMANDS),
				client: { name: token.name, role: token.role },
			}),
		);
		this.clients.add(client);
		socket.on("message", (data: RawData, isBinary: boolean) => this.received(client, data, isBinary));
		socket.on("close", () => {
			this.clients.delete(client);
			client.live?.detach(client);
		});
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
		// Parsed once, here; the validator was loaded before the server listened.
		const input = parseInput({ ok: true, text: bytes.toString("utf8") });
		if (input.kind === "wait") {
			client.sendError("parse", "The command validator is not loaded: the server is starting, try again");
			return;
		}
		if (input.kind === "error") {
			client.sink.write(input.response);
			return;
		}
		const type = input.kind === "command" ? input.command.type : input.response.type;
		const id = input.kind === "command" ? input.command.id : undefined;
		if (client.token.role === "observer" && !observerMay(type)) {
			client.sendError(
				type,
				`The token "${client.token.name}" is an observer's: it may read (get_*, list_sessions, attach, detach), not "${type}"`,
				id,
			);
			return;
		}
		if (input.kind === "command" && SERVER_COMMANDS.has(type)) {
			this.serverCommand(client, input.command);
			return;
		}
		if (!client.live) {
			client.sendError(type, "Not attached to a session: send attach first", id);
			return;
		}
		if (input.kind === "ui_response") client.live.answerDialog(input.response, client.sink, client.token.name);
		else client.live.handle(input.command, client.sink, client.token.name);
	}

	private serverCommand(client: Client, command: Command): void {
		const respond = (data?: unknown) => {
			const response: Record<string, unknown> = { type: "response", command: command.type, success: true };
			if (command.id !== undefined) response.id = command.id;
			if (data !== undefined) response.data = data;
			client.sendText(JSON.stringify(response));
		};
		try {
			if (command.type === "list_sessions") {
				const live = [...this.sessions.keys()].map((held) => liveSummary(held.session, held.attachedCount));
				const cwd = resolve(this.options.cwd, command.cwd ?? ".");
				respond({ sessions: listSessionSummaries(live, this.options.storedSessions?.(cwd) ?? []) });
			} else if (command.type === "detach") {
				client.live?.detach(client);
				client.live = undefined;
				respond();
			} else if (command.type === "attach") this.attach(client, command, respond);
		} catch (error) {
			client.sendError(command.type, error instanceof Error ? error.message : String(error), command.id);
		}
	}

	private attach(client: Client, command: CommandOf<"attach">, respond: (data: unknown) => void): void {
		const { sessionId, afterSeq } = command;
		if (sessionId === null && client.token.role === "observer") {
			const name = client.token.name;
			throw new Error(`The token "${name}" is an observer's: it may attach to a session that exists, not start one`);
		}
		const cwd = command.cwd === undefined ? undefined : resolve(this.options.cwd, command.cwd);
		const live = sessionId === null ? this.open(cwd) : this.find(sessionId, cwd, afterSeq !== undefined);
		client.live?.detach(client);
		client.live = live;
		const now = { sessionId: live.id, seq: live.log.seq, state: live.session.getState() };
		// A reply or tool under way is sent as it stands to a client that gets no replay of its start.
		const inProgress = live.inProgress;
		respond(afterSeq === undefined && inProgress ? { ...now, inProgress } : now);
		const replayed = live.attach(client, afterSeq);
		if (!replayed) {
			const resync = { type: "resync", ...now, messages: live.session.messages };
			client.sendText(JSON.stringify(inProgress ? { ...resync, inProgress } : resync));
		}
		// Open approvals are asked of a client that could not have seen them (a replay holds them).
		if (!replayed || afterSeq === undefined) live.sendPending(client);
	}

	private open(cwd: string | undefined, sessionId?: string, firstSeq?: number): LiveSession {
		let made: LiveSession | undefined;
		const live = new LiveSession(
			(hooks) => this.options.createSession({ cwd: cwd ?? this.options.cwd, sessionId, ...hooks }),
			this.options.replayLimits ?? DEFAULT_REPLAY_LIMITS,
			firstSeq ?? (sessionId === undefined ? 0 : this.state.seqOf(sessionId)),
			() => {
				if (made) this.keep([made], false);
			},
		);
		made = live;
		this.sessions.set(live, true);
		this.keep([live], false);
		return live;
	}

	/** Writes what a restarted server needs of these sessions (stored ones only). */
	private keep(sessions: readonly LiveSession[], clean: boolean): void {
		const kept: KeptSession[] = [];
		for (const live of sessions) {
			const state = live.session.getState();
			if (state.sessionFile === undefined) continue;
			kept.push({
				id: state.sessionId,
				file: state.sessionFile,
				cwd: live.session.cwd,
				seq: live.log.seq,
				waiting: live.waitsForApproval,
				clean,
			});
		}
		if (kept.length > 0) this.state.update(kept);
	}

	/** Closes (4003) the connections whose token was revoked or changed since they connected. */
	private closeRevoked(): void {
		if (this.clients.size === 0 || !this.auth.tokens.changedSinceLastLook()) return;
		let current: Set<string>;
		try {
			current = new Set(this.auth.tokens.list().map((token) => token.hash));
		} catch (error) {
			// Fails closed: a tokens file that cannot be read keeps no connection.
			this.log(`Closing every connection: ${error instanceof Error ? error.message : String(error)}`);
			current = new Set();
		}
		for (const client of this.clients) {
			if (current.has(client.token.hash)) continue;
			client.close(CLOSE_REVOKED, "token revoked");
			client.live?.detach(client);
			this.clients.delete(client);
		}
	}

	/** Unloads the sessions nobody has attached to for the idle time (and that run nothing). */
	private unloadIdle(): void {
		const idle = [...this.sessions.keys()].filter((live) => live.idleFor(this.idleUnloadMs));
		if (idle.length === 0) return;
		this.keep(idle, true);
		for (const live of idle) {
			this.sessions.delete(live);
			void live.dispose().catch((error: unknown) => this.log(`Error while unloading a session: ${String(error)}`));
		}
	}

	/** Reopens the sessions that waited for approvals when the server stopped, and asks them again. */
	private resumeWaiting(): void {
		for (const kept of this.state.waiting()) {
			let live: LiveSession;
			try {
				live = this.open(kept.cwd, kept.file, this.state.seqOf(kept.id));
			} catch (error) {
				this.log(
					`Cannot reopen session ${kept.id} (${kept.file}): ${error instanceof Error ? error.message : String(error)}`,
				);
				this.state.update([{ ...kept, waiting: false }]);
				continue;
			}
			void live.session
				.resumeInterruptedCalls()
				.catch((error: unknown) => this.log(`Cannot resume session ${kept.id}: ${String(error)}`));
		}
	}

	/**
	 * The live session with this id; else, when `resuming` (attach with afterSeq), the runtime whose
	 * session had it before a fork, a new session or a switch (the client was attached to that
	 * stream, and the events it missed include the change); else the session opened from its file.
	 */
	private find(sessionId: string, cwd: string | undefined, resuming: boolean): LiveSession {
		const live = [...this.sessions.keys()];
		const found =
			live.find((held) => held.id === sessionId) ?? (resuming ? live.find((held) => held.hadId(sessionId)) : undefined);
		if (found) return found;
		// Not live: opened from its file (a session of an earlier run of the server).
		const opened = this.open(cwd, sessionId);
		if (opened.id === sessionId) return opened;
		// Nothing was stored under that id (a session that was never saved gets a new one): not that session.
		this.sessions.delete(opened);
		void opened.dispose();
		throw new Error(`No session "${sessionId}": none is live, and none is stored for that folder`);
	}
}
