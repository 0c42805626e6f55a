/**
 * Shared pieces of the `atomic serve` tests: servers on free ports (plain or TLS) with a controller
 * and an observer token, `atomic serve` run as a process, and a WebSocket client that keeps every
 * record it received.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll } from "vitest";
import WebSocket from "ws";
import { sessionDirectories } from "../../src/runtime/current/session-directory.js";
import { createAgentSession } from "../../src/runtime/facade/create-agent-session.js";
import type { ReplayLimits } from "../../src/server/event-log.js";
import { AtomicServer, type ServeOptions } from "../../src/server/serve.js";
import { TokenStore } from "../../src/server/tokens.js";
import { listSessions } from "../../src/session/listing.js";
import { recordViolations } from "../rpc/helpers.js";
import { LlmServer } from "../support/llm-server.js";
import { CLI, childEnv, makeAgentDir } from "../support/rpc-process.js";

export type Record_ = Record<string, unknown>;
export type AgentDirs = ReturnType<typeof makeAgentDir>;

/** The test certificate (for 127.0.0.1) and its private key: the PEM files. */
export const TLS_FILES = {
	cert: fileURLToPath(new URL("../support/tls/cert.pem", import.meta.url)),
	key: fileURLToPath(new URL("../support/tls/key.pem", import.meta.url)),
};
/** The test certificate and its key as PEM text. */
export const TLS = { cert: readFileSync(TLS_FILES.cert, "utf8"), key: readFileSync(TLS_FILES.key, "utf8") };

export const cleanups: (() => Promise<void> | void)[] = [];
let server: LlmServer | undefined;

/** One loopback model server for the file; cleanups run after every test. */
export function useServeHarness(): { readonly llm: LlmServer } {
	beforeAll(async () => {
		server = await LlmServer.start();
	});
	afterEach(async () => {
		for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
		server?.reset();
		// Every record a server sent is one the RPC schema describes.
		const records = Client.opened.splice(0).flatMap((client) => client.records);
		const violations = recordViolations(
			records.flatMap((record) => (typeof record.type === "string" ? [{ ...record, type: record.type }] : [])),
		);
		if (violations.length > 0) throw new Error(`records outside the RPC schema:\n${violations.slice(0, 5).join("\n")}`);
	});
	afterAll(async () => {
		await server?.close();
	});
	return {
		get llm() {
			if (!server) throw new Error("the model server is not started yet");
			return server;
		},
	};
}

/** Agent, home and work directories using the harness's model server, removed after the test. */
export function agentDirs(settings?: Record<string, unknown>): AgentDirs {
	const llm = server;
	if (!llm) throw new Error("useServeHarness() first");
	const dirs = makeAgentDir({ server: llm, settings });
	cleanups.push(() => dirs.cleanup());
	return dirs;
}

export interface ServerOptions {
	replayLimits?: ReplayLimits;
	settings?: Record<string, unknown>;
	maxFrameBytes?: number;
	sendQueueBytes?: number;
	idleUnloadMs?: number;
	/** Store sessions (under the agent dir); default: in memory. */
	store?: boolean;
	/** Extension files every session loads. */
	extensions?: string[];
	/** Reuse these directories (a restarted server). */
	dirs?: AgentDirs;
	/** Serve https and wss with these credentials (`TLS` holds the test certificate's). */
	tls?: ServeOptions["tls"];
	/** The address to bind (default 127.0.0.1); clients still connect over 127.0.0.1. */
	host?: string;
	/** Whether the server makes and prints a one-time login URL (its default: true). */
	loginUrl?: boolean;
	/** The built web page to serve at `/` (dist/web). */
	webRoot?: string;
}

/**
 * The options of a server on a free port of `options.host` (default 127.0.0.1) whose sessions use
 * the mock model, in memory unless `options.store`; its lines go to `log`.
 */
export function serveOptions(
	dirs: AgentDirs,
	options: ServerOptions = {},
	log: (line: string) => void = () => undefined,
): ServeOptions {
	return {
		host: options.host ?? "127.0.0.1",
		port: 0,
		cwd: dirs.work,
		agentDir: dirs.agentDir,
		version: "test",
		replayLimits: options.replayLimits,
		maxFrameBytes: options.maxFrameBytes,
		sendQueueBytes: options.sendQueueBytes,
		idleUnloadMs: options.idleUnloadMs,
		tls: options.tls,
		loginUrl: options.loginUrl,
		webRoot: options.webRoot,
		log,
		storedSessions: (cwd) => {
			const dir = sessionDirectories({ agentDir: dirs.agentDir, noSession: !options.store }).forCwd(cwd);
			return dir ? listSessions(dir, cwd) : [];
		},
		createSession: ({ cwd, sessionId, approve, ui, cancelDialogs }) =>
			createAgentSession({
				cwd,
				session: sessionId,
				approve,
				agentDir: dirs.agentDir,
				model: "mock/mock-model",
				noSession: !options.store,
				extensions: { paths: options.extensions ?? [], discover: false, mode: "rpc", ui, cancelDialogs },
			}).session,
	};
}

/**
 * A server on a free port with one controller ("laptop") and one observer ("phone") token (empty
 * strings when `options.dirs` already holds them). It keeps the lines it logs; `loginUrl` is the
 * login link among them, when it printed one.
 */
export async function startServer(options: ServerOptions = {}) {
	const dirs = options.dirs ?? agentDirs(options.settings);
	const tokens = new TokenStore(dirs.agentDir);
	const existing = new Set(tokens.list().map((token) => token.name));
	const controller = existing.has("laptop") ? "" : tokens.create("laptop", "controller");
	const observer = existing.has("phone") ? "" : tokens.create("phone", "observer");
	const lines: string[] = [];
	const atomic = new AtomicServer(serveOptions(dirs, options, (line) => lines.push(line)));
	const port = await atomic.listen();
	let closed = false;
	const close = async () => {
		if (closed) return;
		closed = true;
		await atomic.close();
	};
	cleanups.push(close);
	const secure = options.tls !== undefined;
	const loginUrl = lines.map((line) => /(https?:\/\/\S+\/login\?code=\S+)/.exec(line)?.[1]).find(Boolean);
	return {
		port,
		controller,
		observer,
		/** The agent's WebSocket address (ws or wss). */
		url: `${secure ? "wss" : "ws"}://127.0.0.1:${port}/ws`,
		/** The server's own origin (http or https), the base of its HTTP paths. */
		origin: `${secure ? "https" : "http"}://127.0.0.1:${port}`,
		loginUrl,
		lines,
		tokens,
		dirs,
		server: atomic,
		close,
	};
}

/**
 * `atomic serve --port 0 --cwd <work> ...args` run as a process (killed after the test). Resolves
 * once `ready` finds what it waits for in the stderr so far; rejects when the process exits first.
 * `stop()` sends SIGTERM and gives the exit code.
 */
export async function spawnServe<T>(dirs: AgentDirs, args: string[], ready: (stderr: string) => T | undefined) {
	const child = spawn(process.execPath, [CLI, "serve", "--port", "0", "--cwd", dirs.work, ...args], {
		env: childEnv(dirs.agentDir, dirs.home),
		stdio: ["ignore", "ignore", "pipe"],
	});
	cleanups.push(() => {
		child.kill("SIGKILL");
	});
	const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
	let stderr = "";
	const found = await new Promise<T>((resolve, reject) => {
		child.stderr.on("data", (chunk: Buffer) => {
			stderr += chunk.toString();
			const value = ready(stderr);
			if (value !== undefined) resolve(value);
		});
		void exited.then((code) => reject(new Error(`exited ${code}: ${stderr}`)));
	});
	return {
		found,
		/** Everything the process wrote on stderr so far. */
		stderr: () => stderr,
		stop(): Promise<number | null> {
			child.kill("SIGTERM");
			return exited;
		},
	};
}

/** A WebSocket client that keeps every record it received. */
export class Client {
	/** Every client of the current test (their records are checked against the schema). */
	static readonly opened: Client[] = [];
	readonly records: Record_[] = [];
	private waiters: (() => void)[] = [];
	private counter = 0;
	closed: { code: number; reason: string } | undefined;

	private constructor(readonly socket: WebSocket) {
		Client.opened.push(this);
		socket.on("message", (data) => {
			const value: unknown = JSON.parse(String(data));
			if (typeof value === "object" && value !== null) this.records.push({ ...value });
			for (const waiter of this.waiters.splice(0)) waiter();
		});
		socket.on("close", (code, reason) => {
			this.closed = { code, reason: String(reason) };
			for (const waiter of this.waiters.splice(0)) waiter();
		});
	}

	/** A connection with `token` as its Bearer header, and these headers besides. */
	static connect(url: string, token: string, headers: Record<string, string> = {}): Promise<Client> {
		return Client.open(url, { headers: { authorization: `Bearer ${token}`, ...headers } });
	}

	/** A connection with exactly these options (a browser's cookie instead of a token, a CA to trust). */
	static open(url: string, options: WebSocket.ClientOptions = {}): Promise<Client> {
		const socket = new WebSocket(url, options);
		cleanups.push(() => socket.terminate());
		return new Promise((resolve, reject) => {
			socket.once("open", () => resolve(new Client(socket)));
			socket.once("unexpected-response", (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
			socket.once("error", reject);
		});
	}

	async waitFor(predicate: (record: Record_) => boolean, from = 0): Promise<Record_> {
		for (;;) {
			const found = this.records.slice(from).find(predicate);
			if (found) return found;
			if (this.closed) throw new Error(`closed (${this.closed.code}) before the record came`);
			await new Promise<void>((resolve, reject) => {
				const timer = setTimeout(() => reject(new Error("timed out waiting for a record")), 10_000);
				this.waiters.push(() => {
					clearTimeout(timer);
					resolve();
				});
			});
		}
	}

	async request(command: Record_): Promise<Record_> {
		const id = `c${++this.counter}`;
		this.socket.send(JSON.stringify({ ...command, id }));
		return this.waitFor((record) => record.type === "response" && record.id === id);
	}

	events(): Record_[] {
		return this.records.filter((record) => typeof record.seq === "number");
	}
}

/** The text that the `text_delta`s among `events` carry, in order. */
export function deltas(events: Record_[]): string {
	return events
		.filter((record) => record.type === "message_update")
		.map((record) => {
			const event = record.assistantMessageEvent;
			if (typeof event !== "object" || event === null || !("delta" in event) || !("type" in event)) return "";
			return event.type === "text_delta" ? String(event.delta) : "";
		})
		.join("");
}
