/**
 * Shared pieces of the `atomic serve` tests: servers on free loopback ports with a controller
 * and an observer token, and a WebSocket client that keeps every record it received.
 */
import { afterAll, afterEach, beforeAll } from "vitest";
import WebSocket from "ws";
import { sessionDirectories } from "../../src/runtime/current/session-directory.js";
import { createAgentSession } from "../../src/runtime/facade/create-agent-session.js";
import type { ReplayLimits } from "../../src/server/event-log.js";
import { AtomicServer } from "../../src/server/serve.js";
import { TokenStore } from "../../src/server/tokens.js";
import { listSessions } from "../../src/session/listing.js";
import { recordViolations } from "../rpc/helpers.js";
import { LlmServer } from "../support/llm-server.js";
import { makeAgentDir } from "../support/rpc-process.js";

export type Record_ = Record<string, unknown>;

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
	dirs?: ReturnType<typeof makeAgentDir>;
}

/** A server on a free loopback port with one controller and one observer token. */
export async function startServer(options: ServerOptions = {}) {
	const llm = server;
	if (!llm) throw new Error("useServeHarness() first");
	const dirs = options.dirs ?? makeAgentDir({ server: llm, settings: options.settings });
	const tokens = new TokenStore(dirs.agentDir);
	const existing = new Set(tokens.list().map((token) => token.name));
	const controller = existing.has("laptop") ? "" : tokens.create("laptop", "controller");
	const observer = existing.has("phone") ? "" : tokens.create("phone", "observer");
	const atomic = new AtomicServer({
		host: "127.0.0.1",
		port: 0,
		cwd: dirs.work,
		agentDir: dirs.agentDir,
		version: "test",
		replayLimits: options.replayLimits,
		maxFrameBytes: options.maxFrameBytes,
		sendQueueBytes: options.sendQueueBytes,
		idleUnloadMs: options.idleUnloadMs,
		log: () => undefined,
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
	});
	const port = await atomic.listen();
	if (!options.dirs) cleanups.push(() => dirs.cleanup());
	let closed = false;
	const close = async () => {
		if (closed) return;
		closed = true;
		await atomic.close();
	};
	cleanups.push(close);
	return { port, controller, observer, url: `ws://127.0.0.1:${port}/ws`, dirs, server: atomic, close };
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

	static connect(url: string, token: string, headers: Record<string, string> = {}): Promise<Client> {
		const socket = new WebSocket(url, { headers: { authorization: `Bearer ${token}`, ...headers } });
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
