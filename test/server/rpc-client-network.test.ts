/**
 * RpcClient over the network: real `atomic serve` servers (AtomicServer on free loopback ports,
 * the loopback mock model), reached directly or through a TCP proxy the tests can cut, refuse or
 * make deaf, to drop connections the way a network does.
 */
import { spawn } from "node:child_process";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
	type ConnectionState,
	type NetworkClientOptions,
	RpcClient,
	RpcConnectionError,
	RpcConnectionLostError,
	type RpcEvent,
} from "../../src/index.js";
import { SeqGate } from "../../src/rpc/client/network/seq-gate.js";
import { parseRecord } from "../../src/rpc/client/records.js";
import { textReply, toolReply } from "../support/llm-server.js";
import { replyText } from "../support/reply-text.js";
import { cleanups, startServer, TLS, useServeHarness } from "./harness.js";

const DIALOGS = join(import.meta.dirname, "../rpc/fixtures/extensions/dialogs.ts");
/** Quick reconnects, so that a test does not wait for the default pauses. */
const FAST = { minDelayMs: 20, maxDelayMs: 200 };

const harness = useServeHarness();

/**
 * A TCP proxy in front of a server. `cut()` destroys every connection through it (the client
 * sees its connection drop, as on a network failure); `refusing` makes it drop new connections at
 * once; `deaf` discards what the server sends, so responses are lost on the way.
 */
class CutProxy {
	accepted = 0;
	refusing = false;
	deaf = false;
	private readonly pairs = new Set<{ client: Socket; upstream: Socket }>();

	private constructor(
		private readonly server: Server,
		readonly port: number,
	) {}

	static async start(targetPort: number): Promise<CutProxy> {
		let proxy: CutProxy | undefined;
		const server = createServer((client) => proxy?.accept(client, targetPort));
		const port = await new Promise<number>((done) => {
			server.listen(0, "127.0.0.1", () => {
				const address = server.address();
				done(typeof address === "object" && address ? address.port : 0);
			});
		});
		proxy = new CutProxy(server, port);
		const made = proxy;
		cleanups.push(() => made.close());
		return made;
	}

	get url(): string {
		return `ws://127.0.0.1:${this.port}/ws`;
	}

	cut(): void {
		for (const { client, upstream } of this.pairs) {
			client.destroy();
			upstream.destroy();
		}
		this.pairs.clear();
	}

	close(): Promise<void> {
		this.cut();
		return new Promise((done) => this.server.close(() => done()));
	}

	private accept(client: Socket, targetPort: number): void {
		this.accepted++;
		if (this.refusing) {
			client.destroy();
			return;
		}
		const upstream = createConnection(targetPort, "127.0.0.1");
		const pair = { client, upstream };
		this.pairs.add(pair);
		client.on("data", (data) => upstream.write(data));
		upstream.on("data", (data) => {
			if (!this.deaf) client.write(data);
		});
		const end = () => {
			client.destroy();
			upstream.destroy();
			this.pairs.delete(pair);
		};
		for (const socket of [client, upstream]) {
			socket.on("close", end);
			socket.on("error", end);
		}
	}
}

/** A started network client that records its events, connection states and reported problems. */
async function connect(options: NetworkClientOptions) {
	const events: RpcEvent[] = [];
	const states: ConnectionState[] = [];
	const errors: Error[] = [];
	const client = new RpcClient({ reconnect: FAST, onError: (error) => errors.push(error), ...options });
	cleanups.push(async () => {
		await client.close();
	});
	client.onEvent((event) => events.push(event));
	client.onConnectionChange((state) => states.push(state));
	const attached = await client.start();
	return { client, attached, events, states, errors };
}

/** Resolves once `check` holds, looking again at each event and state change of the client. */
function until(client: RpcClient<string>, check: () => boolean, what: string): Promise<void> {
	return new Promise((done, fail) => {
		if (check()) return done();
		const timer = setTimeout(() => {
			stop();
			fail(new Error(`timed out waiting for ${what}`));
		}, 20_000);
		const look = () => {
			if (!check()) return;
			clearTimeout(timer);
			stop();
			done();
		};
		const stopEvents = client.onEvent(look);
		const stopStates = client.onConnectionChange(look);
		const stop = () => {
			stopEvents();
			stopStates();
		};
	});
}

function seqs(events: RpcEvent[]): number[] {
	return events.flatMap((event) => (typeof event.seq === "number" ? [event.seq] : []));
}

/** Numbers from `from` to `to`. */
function run(from: number, to: number): number[] {
	return Array.from({ length: to - from + 1 }, (_value, index) => from + index);
}

describe("RpcClient over the network", () => {
	it("starts a session, prompts and waits, lists sessions, and closes with 1000", async () => {
		const { url, controller } = await startServer();
		const { client, attached, events, states, errors } = await connect({ url, token: controller });
		expect(attached).toMatchObject({ seq: 0, state: { isStreaming: false } });
		expect(client.sessionId).toBe(attached.sessionId);
		expect(client.pid).toBeUndefined();
		// The server's ready record names what it takes, the server's own commands included.
		expect(client.ready).toMatchObject({ type: "ready", protocolVersion: 1 });
		expect(client.supports("attach") && client.supports("prompt")).toBe(true);

		harness.llm.enqueue(textReply("hello over the network"));
		const outcome = await client.promptAndWait("hi");
		expect(outcome.events.at(-1)?.type).toBe("agent_settled");
		expect(await client.getLastAssistantText()).toBe("hello over the network");
		expect(seqs(events)).toEqual(run(1, seqs(events).length));
		expect(client.lastSeq).toBe(seqs(events).at(-1));
		expect((await client.getState()).sessionId).toBe(attached.sessionId);
		const sessions = await client.listSessions();
		expect(sessions).toContainEqual(expect.objectContaining({ id: attached.sessionId, live: true, attached: 1 }));

		expect(await client.close()).toMatchObject({ code: 1000 });
		expect(states).toEqual(["connecting", "open", "closed"]);
		await expect(client.getState()).rejects.toThrow(RpcConnectionError);
		expect(errors).toEqual([]);
	});

	it("attaches two clients to one session: both see the same events with the same numbers", async () => {
		const { url, controller, observer } = await startServer();
		const a = await connect({ url, token: controller });
		const b = await connect({ url, token: observer, sessionId: a.attached.sessionId });
		expect(b.client.sessionId).toBe(a.client.sessionId);

		harness.llm.enqueue(textReply("seen by both"));
		await a.client.promptAndWait("hi");
		await until(b.client, () => b.events.some((event) => event.type === "agent_settled"), "b's agent_settled");
		const numbered = (events: RpcEvent[]) => events.map((event) => [event.seq, event.type]);
		expect(numbered(b.events)).toEqual(numbered(a.events));
		expect(replyText(b.events)).toBe("seen by both");
		// An observer may read, not act: the server's refusal arrives as RpcCommandError.
		await expect(b.client.prompt("not allowed")).rejects.toThrow(
			'is an observer\'s: it may read (get_*, list_sessions, attach, detach), not "prompt"',
		);
		expect([...a.errors, ...b.errors]).toEqual([]);
	});

	it("reconnects when the connection drops mid-reply and delivers the whole reply once, in order", async () => {
		const { port, controller } = await startServer();
		const proxy = await CutProxy.start(port);
		const { client, events, states, errors } = await connect({ url: proxy.url, token: controller });
		const text = Array.from({ length: 40 }, (_value, index) => `word${index} `).join("");
		harness.llm.enqueue({ blocks: [{ type: "text", text, chunks: 40 }], delayMs: 15 });
		const waiting = client.promptAndWait("tell me a long story");
		let cuts = 0;
		const stop = client.onEvent((event) => {
			// Twice: early in the reply, and again while the first reconnect is still replaying or just done.
			const deltas = events.filter((seen) => seen.type === "message_update").length;
			if (event.type === "message_update" && ((cuts === 0 && deltas === 5) || (cuts === 1 && deltas === 20))) {
				cuts++;
				proxy.cut();
			}
		});
		const outcome = await waiting;
		stop();
		expect(cuts).toBe(2);
		expect(proxy.accepted).toBeGreaterThanOrEqual(3);
		expect(states.filter((state) => state === "reconnecting").length).toBe(2);
		expect(states.at(-1)).toBe("open");
		const numbers = seqs(events);
		expect(numbers).toEqual(run(1, numbers.length));
		expect(replyText(events)).toBe(text);
		expect(replyText(outcome.events)).toBe(text);
		expect(outcome.events.filter((event) => event.type === "agent_settled")).toHaveLength(1);
		expect(harness.llm.requests).toHaveLength(1);
		expect(errors).toEqual([]);
	});

	it("follows a new session started by another client, and reconnects to it", async () => {
		const { port, controller } = await startServer();
		const proxy = await CutProxy.start(port);
		const a = await connect({ url: proxy.url, token: controller });
		const b = await connect({ url: `ws://127.0.0.1:${port}/ws`, token: controller, sessionId: a.attached.sessionId });
		await b.client.newSession();
		await until(a.client, () => a.events.some((event) => event.type === "session_changed"), "session_changed");
		expect(b.client.sessionId).not.toBe(a.attached.sessionId);
		expect(a.client.sessionId).toBe(b.client.sessionId);
		proxy.cut();
		await until(a.client, () => proxy.accepted >= 2 && a.states.at(-1) === "open", "the reconnect");
		expect((await a.client.getState()).sessionId).toBe(b.client.sessionId);
		await b.client.promptAndWait("on the new one");
		await until(a.client, () => a.events.some((event) => event.type === "agent_settled"), "agent_settled");
		expect(a.events.some((event) => event.type === "resync")).toBe(false);
		expect(a.errors).toEqual([]);
	});

	it("reports a gap larger than what the server keeps as a resync, then goes on from its seq", async () => {
		const { port, url, controller } = await startServer({ replayLimits: { events: 3, bytes: 1024 * 1024 } });
		const proxy = await CutProxy.start(port);
		const a = await connect({ url: proxy.url, token: controller });
		const b = await connect({ url, token: controller, sessionId: a.attached.sessionId });

		proxy.refusing = true;
		proxy.cut();
		await until(a.client, () => a.states.includes("reconnecting"), "reconnecting");
		harness.llm.enqueue(textReply("said while you were away"));
		await b.client.promptAndWait("two");
		const last = b.client.lastSeq ?? 0;
		expect(last).toBeGreaterThan(3);

		proxy.refusing = false;
		await until(a.client, () => a.events.some((event) => event.type === "resync"), "the resync");
		const resync = a.events.find((event) => event.type === "resync");
		if (resync?.type !== "resync") throw new Error("no resync");
		expect(resync).toMatchObject({ sessionId: a.attached.sessionId, seq: last, state: { isStreaming: false } });
		expect(JSON.stringify(resync.messages)).toContain("said while you were away");
		expect(a.client.lastSeq).toBe(last);

		harness.llm.enqueue(textReply("and now"));
		const before = a.events.length;
		await a.client.promptAndWait("three");
		const after = seqs(a.events.slice(before));
		expect(after).toEqual(run(last + 1, last + after.length));
		expect(a.errors).toEqual([]);
	});

	it("a bad token fails start() clearly; a token revoked while connected ends the client without a reconnect loop", async () => {
		const { port, url, tokens, controller } = await startServer();
		const refused = await new RpcClient({ url, token: "atk_wrong" }).start().then(
			() => undefined,
			(error: unknown) => error,
		);
		expect(refused).toBeInstanceOf(RpcConnectionError);
		expect(refused).toMatchObject({ status: 401 });
		expect(String(refused)).toContain(`The server at ${url} refused the token (HTTP 401`);

		const proxy = await CutProxy.start(port);
		const { client, states } = await connect({ url: proxy.url, token: controller });
		const reasons: Error[] = [];
		client.onConnectionChange((_state, reason) => {
			if (reason) reasons.push(reason);
		});
		tokens.revoke("laptop");
		proxy.cut();
		const end = await client.exited;
		expect(end.error).toBeInstanceOf(RpcConnectionError);
		expect(end.error?.message).toContain("refused the token (HTTP 401");
		expect(states.at(-1)).toBe("closed");
		expect(reasons.at(-1)?.message).toContain("refused the token");
		await expect(client.getState()).rejects.toThrow("refused the token");
		const attempts = proxy.accepted;
		await new Promise((done) => setTimeout(done, 300));
		expect(proxy.accepted).toBe(attempts);
	});

	it("rejects a command whose response was lost as of unknown outcome, without sending it again; sends a get_* again", async () => {
		const { port, controller } = await startServer();
		const proxy = await CutProxy.start(port);
		const { client, events, errors } = await connect({ url: proxy.url, token: controller });
		harness.llm.enqueue(textReply("ran once"));
		proxy.deaf = true;
		const prompted = client.prompt("run this once").then(
			() => undefined,
			(error: unknown) => error,
		);
		const state = client.getState();
		// The prompt reached the agent: the model was asked.
		const deadline = Date.now() + 20_000;
		while (harness.llm.requests.length === 0 && Date.now() < deadline)
			await new Promise((done) => setTimeout(done, 10));
		expect(harness.llm.requests).toHaveLength(1);
		proxy.cut();
		proxy.deaf = false;

		const lost = await prompted;
		expect(lost).toBeInstanceOf(RpcConnectionLostError);
		expect(lost).toMatchObject({ command: "prompt" });
		expect(String(lost)).toContain("after prompt was sent and before its response came: its outcome is unknown");
		expect((await state).sessionId).toBe(client.sessionId);
		// The run's events arrive after the reconnect (replayed), and the model was asked once.
		await until(client, () => events.some((event) => event.type === "agent_settled"), "agent_settled");
		await client.waitForIdle();
		expect(replyText(events)).toBe("ran once");
		expect(harness.llm.requests).toHaveLength(1);
		expect(errors).toEqual([]);
	});

	it("waits for the reconnect with a command sent while disconnected, within its timeout", async () => {
		const { port, controller } = await startServer();
		const proxy = await CutProxy.start(port);
		const { client } = await connect({ url: proxy.url, token: controller });
		proxy.refusing = true;
		proxy.cut();
		await until(client, () => client.connectionState === "reconnecting", "reconnecting");
		await expect(client.getState({ timeoutMs: 50 })).rejects.toThrow("Timed out after 50 ms");
		const state = client.getState();
		proxy.refusing = false;
		expect((await state).sessionId).toBe(client.sessionId);
	});

	it("speaks wss:// to a server with a self-signed certificate given as ca, and refuses it without", async () => {
		const { url, controller } = await startServer({ tls: TLS });
		expect(url.startsWith("wss://")).toBe(true);
		const untrusted = await new RpcClient({ url, token: controller }).start().then(
			() => undefined,
			(error: unknown) => error,
		);
		expect(untrusted).toBeInstanceOf(RpcConnectionError);
		expect(String(untrusted)).toContain(`Could not connect to ${url}`);
		const { client } = await connect({ url, token: controller, ca: TLS.cert });
		expect((await client.getState()).sessionId).toBe(client.sessionId);
	});

	it("switches sessions with attach and detach; a process client refuses them", async () => {
		const { url, controller } = await startServer();
		const { client, attached } = await connect({ url, token: controller });
		const other = await client.attach(null);
		expect(other.sessionId).not.toBe(attached.sessionId);
		expect(client.sessionId).toBe(other.sessionId);
		const back = await client.attach(attached.sessionId);
		expect(back.sessionId).toBe(attached.sessionId);
		await client.detach();
		expect(client.sessionId).toBeUndefined();
		await expect(client.getState()).rejects.toThrow("Not attached to a session");
		await expect(new RpcClient().attach(null)).rejects.toThrow("attach is a command of atomic serve");
		await expect(new RpcClient({ url: "http://127.0.0.1:1/ws", token: "t" }).start()).rejects.toThrow(
			"the protocol must be ws: or wss:",
		);
	});

	it("close() leaves nothing running: a process that used the client exits by itself", async () => {
		const { port, url, controller } = await startServer();
		const proxy = await CutProxy.start(port);
		harness.llm.enqueue(textReply("bye"));
		const script = `
const { RpcClient } = require(${JSON.stringify(resolve("dist/index.js"))});
(async () => {
	const first = new RpcClient({ url: ${JSON.stringify(url)}, token: ${JSON.stringify(controller)} });
	await first.start();
	await first.promptAndWait("hi");
	await first.close();
	const second = new RpcClient({ url: ${JSON.stringify(proxy.url)}, token: ${JSON.stringify(controller)} });
	const closed = new Promise((done) => second.onConnectionChange((state) => {
		if (state === "reconnecting") second.close().then(done);
	}));
	await second.start();
	process.stdout.write("attached\\n");
	await closed;
	process.stdout.write("closed\\n");
})().catch((error) => { console.error(error); process.exit(2); });
`;
		const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "pipe"] });
		cleanups.push(() => {
			child.kill("SIGKILL");
		});
		let stdout = "";
		let stderr = "";
		child.stderr.on("data", (chunk: Buffer) => {
			stderr += chunk.toString();
		});
		const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
		await new Promise<void>((done, fail) => {
			child.stdout.on("data", (chunk: Buffer) => {
				stdout += chunk.toString();
				if (stdout.includes("attached")) {
					proxy.refusing = true;
					proxy.cut();
					done();
				}
			});
			void exited.then(() => fail(new Error(`exited early: ${stderr}`)));
		});
		const code = await Promise.race([
			exited,
			new Promise<string>((done) => setTimeout(() => done("still running"), 20_000)),
		]);
		expect(code, stderr).toBe(0);
		expect(stdout).toContain("closed");
	});

	it("answers approvals and extension dialogs with the handlers; a client without a dialog handler leaves dialogs to the others", async () => {
		const { url, controller } = await startServer({
			settings: { permissions: { mode: "ask" } },
			extensions: [DIALOGS],
		});
		const a = await connect({ url, token: controller });
		const b = await connect({ url, token: controller, sessionId: a.attached.sessionId });
		const asked: string[] = [];
		// b answers after a pause: had a (who has no handler) cancelled the dialog, its answer would come first.
		b.client.onUiRequest(async (request) => {
			asked.push(request.method);
			await new Promise((done) => setTimeout(done, 50));
			return request.method === "confirm" ? { confirmed: true } : undefined;
		});
		a.client.onApprovalRequest((request) => (request.toolName === "bash" ? "allow" : "deny"));

		expect(await a.client.prompt("/ask")).toBe("handled");
		const notices = (events: RpcEvent[]) =>
			events.flatMap((event) =>
				event.type === "extension_ui_request" && event.method === "notify" ? [event.message] : [],
			);
		await until(a.client, () => notices(a.events).includes("ask confirmed=true"), "the command's notice");
		expect(a.events.some((event) => event.type === "extension_ui_resolved")).toBe(true);

		harness.llm.enqueue(toolReply("bash", { command: "echo approved-over-the-network" }), textReply("done"));
		const outcome = await a.client.promptAndWait("run it");
		const result = outcome.events.find((event) => event.type === "tool_execution_end");
		expect(JSON.stringify(result)).toContain("approved-over-the-network");
		const resolved = outcome.events.find((event) => event.type === "tool_approval_resolved");
		expect(resolved).toMatchObject({ decision: "allow", client: "laptop" });
		expect(notices(a.events)).toContain("tool confirmed=true");
		expect(asked).toEqual(["confirm", "notify", "confirm", "notify"]);
		expect([...a.errors, ...b.errors]).toEqual([]);
	});
});

describe("SeqGate", () => {
	/** An event as the link has it: parsed from a record's text. */
	const event = (record: Record<string, unknown>): RpcEvent => {
		const parsed = parseRecord({ ok: true, text: JSON.stringify(record) });
		if (!parsed.ok || parsed.record.type === "response") throw new Error("not an event");
		return parsed.record;
	};
	const numbered = (seq: number) => event({ type: "agent_start", seq });
	const approval = (id: string, seq: number) => event({ type: "tool_approval_request", id, toolName: "bash", seq });

	it("lets each numbered event through once and in order, and reports a hole", () => {
		const gate = new SeqGate();
		gate.reset(4);
		expect(gate.admit(numbered(5))).toEqual({ admit: true });
		expect(gate.admit(numbered(5))).toEqual({ admit: false });
		expect(gate.admit(numbered(3))).toEqual({ admit: false });
		expect(gate.admit(event({ type: "bash_execution_update", id: "b", channel: "stdout", delta: "x" }))).toEqual({
			admit: true,
		});
		expect(gate.admit(numbered(9))).toEqual({ admit: true, missed: { from: 6, to: 8 } });
		expect(gate.last).toBe(9);
	});

	it("moves to a resync's seq, and passes an approval asked again only when it is new to the client", () => {
		const gate = new SeqGate();
		expect(gate.admit(approval("seen", 1))).toEqual({ admit: true });
		expect(gate.admit(numbered(2))).toEqual({ admit: true });
		const resync = { type: "resync", sessionId: "s", seq: 10, state: { isStreaming: false }, messages: [] };
		expect(gate.admit(event(resync))).toEqual({ admit: true });
		expect(gate.last).toBe(10);
		expect(gate.admit(approval("seen", 1))).toEqual({ admit: false });
		expect(gate.admit(approval("missed", 7))).toEqual({ admit: true });
		expect(gate.admit(approval("missed", 7))).toEqual({ admit: false });
		expect(gate.admit(numbered(10))).toEqual({ admit: false });
		expect(gate.admit(numbered(11))).toEqual({ admit: true });
	});
});
