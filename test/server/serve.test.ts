import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { TokenStore } from "../../src/server/tokens.js";
import { textReply, toolReply } from "../support/llm-server.js";
import { makeAgentDir } from "../support/rpc-process.js";
import { Client, cleanups, type Record_, spawnServe, startServer, useServeHarness } from "./harness.js";

const harness = useServeHarness();

describe("atomic serve", () => {
	it("answers /health without a token and refuses /ws without a valid one, or from another origin", async () => {
		const { port, url, controller } = await startServer();
		const health = await fetch(`http://127.0.0.1:${port}/health`);
		expect(await health.json()).toEqual({ ok: true, version: "test" });
		await expect(Client.connect(url, "atk_wrong")).rejects.toThrow("HTTP 401");
		await expect(Client.connect(url, controller, { origin: "https://evil.example" })).rejects.toThrow("HTTP 403");
		const ok = await Client.connect(url, controller, { origin: `http://127.0.0.1:${port}` });
		expect(ok.socket.readyState).toBe(WebSocket.OPEN);
	});

	it("shares one session between two clients: events numbered alike for both, responses to the sender only", async () => {
		const { url, controller } = await startServer();
		const a = await Client.connect(url, controller);
		const b = await Client.connect(url, controller);
		const before = await a.request({ type: "get_state" });
		expect(before).toMatchObject({ success: false, error: "Not attached to a session: send attach first" });
		const attached = await a.request({ type: "attach", sessionId: null });
		const data = attached.data as { sessionId: string; seq: number; state: Record_ };
		expect(data).toMatchObject({ seq: 0, state: { sessionId: data.sessionId } });
		const joined = await b.request({ type: "attach", sessionId: data.sessionId });
		expect(joined.data).toMatchObject({ sessionId: data.sessionId });
		const list = await b.request({ type: "list_sessions" });
		expect(list.data).toMatchObject({ sessions: [{ id: data.sessionId, live: true, attached: 2, streaming: false }] });

		harness.llm.enqueue(textReply("hello from the model"));
		const prompt = await a.request({ type: "prompt", message: "hi" });
		expect(prompt.success).toBe(true);
		await a.waitFor((record) => record.type === "agent_settled");
		await b.waitFor((record) => record.type === "agent_settled");
		const seqs = (client: Client) => client.events().map((record) => [record.seq, record.type]);
		expect(seqs(a)).toEqual(seqs(b));
		expect(a.events().map((record) => record.seq)).toEqual(a.events().map((_record, index) => index + 1));
		expect(b.records.some((record) => record.type === "response" && record.command === "prompt")).toBe(false);
	});

	it("replays what a client missed after a reconnect, exactly once; sends resync when the gap is not held", async () => {
		const { url, controller } = await startServer({ replayLimits: { events: 1000, bytes: 1024 * 1024 } });
		const a = await Client.connect(url, controller);
		const { data } = await a.request({ type: "attach", sessionId: null });
		const sessionId = (data as { sessionId: string }).sessionId;
		harness.llm.enqueue(textReply("first"));
		await a.request({ type: "prompt", message: "one" });
		await a.waitFor((record) => record.type === "agent_settled");
		const seen = a.events();
		const lastSeen = seen.at(-1)?.seq as number;
		a.socket.terminate();

		const watcher = await Client.connect(url, controller);
		await watcher.request({ type: "attach", sessionId });
		harness.llm.enqueue(textReply("second"));
		await watcher.request({ type: "prompt", message: "two" });
		await watcher.waitFor((record) => record.type === "agent_settled");

		const back = await Client.connect(url, controller);
		const resumed = await back.request({ type: "attach", sessionId, afterSeq: lastSeen });
		const now = (resumed.data as { seq: number }).seq;
		await back.waitFor((record) => record.seq === now);
		const replayed = back.events().map((record) => record.seq);
		expect(replayed).toEqual(Array.from({ length: now - lastSeen }, (_value, index) => lastSeen + 1 + index));
		expect(back.events().some((record) => record.type === "message_update")).toBe(true);

		const small = await startServer({ replayLimits: { events: 3, bytes: 1024 * 1024 } });
		const c = await Client.connect(small.url, small.controller);
		const made = await c.request({ type: "attach", sessionId: null });
		harness.llm.enqueue(textReply("third"));
		await c.request({ type: "prompt", message: "three" });
		await c.waitFor((record) => record.type === "agent_settled");
		const late = await Client.connect(small.url, small.controller);
		await late.request({ type: "attach", sessionId: (made.data as { sessionId: string }).sessionId, afterSeq: 0 });
		const resync = await late.waitFor((record) => record.type === "resync");
		expect(resync).toMatchObject({ seq: c.events().at(-1)?.seq, state: { isStreaming: false } });
		expect(Array.isArray(resync.messages)).toBe(true);
	});

	it("lets an observer read but not act, and answers binary frames and bad JSON with an error", async () => {
		const { url, observer, controller } = await startServer();
		const watcher = await Client.connect(url, observer);
		const starts = await watcher.request({ type: "attach", sessionId: null });
		expect(starts).toMatchObject({ success: false, command: "attach" });
		expect(String(starts.error)).toContain("it may attach to a session that exists, not start one");
		const owner = await Client.connect(url, controller);
		const { data } = await owner.request({ type: "attach", sessionId: null });
		const sessionId = (data as { sessionId: string }).sessionId;
		const attached = await watcher.request({ type: "attach", sessionId });
		expect(attached.success).toBe(true);
		expect((await watcher.request({ type: "get_state" })).success).toBe(true);
		const refused = await watcher.request({ type: "prompt", message: "hi" });
		expect(refused).toMatchObject({ success: false, command: "prompt" });
		expect(String(refused.error)).toContain('The token "phone" is an observer\'s');

		const from = watcher.records.length;
		watcher.socket.send(Buffer.from([1, 2, 3]));
		const binary = await watcher.waitFor((record) => record.type === "response", from);
		expect(String(binary.error)).toContain("Binary frames are not records");
		const next = watcher.records.length;
		watcher.socket.send("{ not json");
		const bad = await watcher.waitFor((record) => record.type === "response", next);
		expect(bad.success).toBe(false);
		expect((await watcher.request({ type: "get_state" })).success).toBe(true);
	});

	it("runs as `atomic serve`: a client attaches, and SIGTERM closes it with 1001 and exits 0", async () => {
		const dirs = makeAgentDir({ server: harness.llm });
		cleanups.push(() => dirs.cleanup());
		const token = new TokenStore(dirs.agentDir).create("cli", "controller");
		const serve = await spawnServe(dirs, [], (stderr) => /atomic serve: (ws:\/\/\S+)/.exec(stderr)?.[1]);
		const url = serve.found;
		const client = await Client.connect(url, token);
		const attached = await client.request({ type: "attach", sessionId: null, cwd: dirs.work });
		expect(attached.success, String(attached.error)).toBe(true);
		expect(await serve.stop()).toBe(0);
		await client.waitFor(() => client.closed !== undefined).catch(() => undefined);
		expect(client.closed?.code).toBe(1001);
	});

	it("asks every client to approve, takes the first answer, names who answered, and asks a late client again", async () => {
		const { url, controller } = await startServer({ settings: { permissions: { mode: "ask" } } });
		const a = await Client.connect(url, controller);
		const b = await Client.connect(url, controller);
		const { data } = await a.request({ type: "attach", sessionId: null });
		const sessionId = (data as { sessionId: string }).sessionId;
		await b.request({ type: "attach", sessionId });
		harness.llm.enqueue(toolReply("bash", { command: "echo approved" }), textReply("done"));
		await a.request({ type: "prompt", message: "run it" });
		const request = await a.waitFor((record) => record.type === "tool_approval_request");
		await b.waitFor((record) => record.type === "tool_approval_request" && record.id === request.id);

		const late = await Client.connect(url, controller);
		await late.request({ type: "attach", sessionId });
		const again = await late.waitFor((record) => record.type === "tool_approval_request");
		expect(again).toEqual(request);

		const answered = await b.request({ type: "tool_approval_response", requestId: request.id, decision: "allow" });
		expect(answered.success).toBe(true);
		const second = await a.request({ type: "tool_approval_response", requestId: request.id, decision: "deny" });
		expect(second.success).toBe(false);
		expect(String(second.error)).toContain("already decided");
		for (const client of [a, b, late]) {
			const resolved = await client.waitFor((record) => record.type === "tool_approval_resolved");
			expect(resolved).toMatchObject({ id: request.id, decision: "allow", by: "user", client: "laptop" });
		}
		await a.waitFor((record) => record.type === "agent_settled");
	});

	it("closes the open connections of a revoked token (4003), and refuses it from then on", async () => {
		const { url, controller, observer, dirs } = await startServer();
		const laptop = await Client.connect(url, controller);
		const phone = await Client.connect(url, observer);
		await laptop.request({ type: "attach", sessionId: null });
		new TokenStore(dirs.agentDir).revoke("laptop");
		await laptop.waitFor(() => laptop.closed !== undefined).catch(() => undefined);
		expect(laptop.closed).toMatchObject({ code: 4003, reason: "token revoked" });
		await expect(Client.connect(url, controller)).rejects.toThrow("HTTP 401");
		// The other token's connection stays.
		expect((await phone.request({ type: "list_sessions" })).success).toBe(true);
	});

	it("closes a connection whose frame is over the size limit (1009), and keeps serving", async () => {
		const { url, controller } = await startServer({ maxFrameBytes: 1024 });
		const big = await Client.connect(url, controller);
		big.socket.send(JSON.stringify({ type: "prompt", message: "x".repeat(4096) }));
		await big.waitFor(() => big.closed !== undefined).catch(() => undefined);
		expect(big.closed?.code).toBe(1009);
		const next = await Client.connect(url, controller);
		expect((await next.request({ type: "attach", sessionId: null })).success).toBe(true);
	});
});
