import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textReply, toolReply } from "../support/llm-server.js";
import { Client, deltas, type Record_, startServer, useServeHarness } from "./harness.js";

const harness = useServeHarness();
const DIALOGS = join(import.meta.dirname, "../rpc/fixtures/extensions/dialogs.ts");

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
	for (;;) {
		const value = await read();
		if (done(value)) return value;
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
}

function sessionsOf(response: Record_): Record_[] {
	const data = response.data;
	if (typeof data !== "object" || data === null || !("sessions" in data) || !Array.isArray(data.sessions)) return [];
	return data.sessions.filter((value: unknown): value is Record_ => typeof value === "object" && value !== null);
}

describe("atomic serve: sessions over time", () => {
	it("asks an approval again after a restart, then carries the call out and goes on", async () => {
		const first = await startServer({ store: true, settings: { permissions: { mode: "ask" } } });
		const a = await Client.connect(first.url, first.controller);
		const { data } = await a.request({ type: "attach", sessionId: null });
		const { sessionId } = data as { sessionId: string };
		harness.llm.enqueue(toolReply("bash", { command: "echo resumed-after-restart" }), textReply("all done"));
		await a.request({ type: "prompt", message: "run it" });
		const asked = await a.waitFor((record) => record.type === "tool_approval_request");
		const lastSeen = a.events().at(-1)?.seq as number;
		const file = String(
			(await a.request({ type: "get_state" })).data &&
				((await a.request({ type: "get_state" })).data as Record_).sessionFile,
		);
		await first.close();
		// The call is in the file without a result: the stop did not end it.
		expect(readFileSync(file, "utf8")).not.toContain('"toolResult"');

		const second = await startServer({ store: true, dirs: first.dirs });
		const b = await Client.connect(second.url, first.controller);
		const resumed = await b.request({ type: "attach", sessionId, afterSeq: lastSeen });
		expect(resumed.success, String(resumed.error)).toBe(true);
		const again = await b.waitFor((record) => record.type === "tool_approval_request");
		expect(again).toMatchObject({ toolCallId: asked.toolCallId, toolName: "bash" });
		// The numbering went on from where the stopped server left it.
		expect(b.events()[0]?.seq).toBe(lastSeen + 1);
		await b.request({ type: "tool_approval_response", requestId: again.id, decision: "allow" });
		await b.waitFor((record) => record.type === "agent_settled");
		const messages = (await b.request({ type: "get_messages" })).data as { messages: Record_[] };
		const roles = messages.messages.map((message) => message.role);
		expect(roles).toEqual(["user", "assistant", "toolResult", "assistant"]);
		expect(JSON.stringify(messages.messages[2])).toContain("resumed-after-restart");
		expect(readFileSync(file, "utf8")).toContain("resumed-after-restart");
	});

	it("resumes a client cut off across a new session on the same runtime, with the change among the missed events", async () => {
		const { url, controller } = await startServer({ store: true });
		const a = await Client.connect(url, controller);
		const b = await Client.connect(url, controller);
		const { data } = await a.request({ type: "attach", sessionId: null });
		const { sessionId } = data as { sessionId: string };
		harness.llm.enqueue(textReply("stored"));
		await a.request({ type: "prompt", message: "keep this" });
		await a.waitFor((record) => record.type === "agent_settled");
		await b.request({ type: "attach", sessionId });
		b.socket.terminate();
		const lastSeen = b.events().at(-1)?.seq ?? 0;
		expect((await a.request({ type: "new_session" })).success).toBe(true);
		const changed = await a.waitFor((record) => record.type === "session_changed");
		expect(changed.sessionId).not.toBe(sessionId);

		const back = await Client.connect(url, controller);
		const resumed = await back.request({ type: "attach", sessionId, afterSeq: lastSeen });
		expect(resumed).toMatchObject({ success: true, data: { sessionId: changed.sessionId } });
		const missed = await back.waitFor((record) => record.type === "session_changed");
		expect(missed).toMatchObject({ seq: changed.seq, sessionId: changed.sessionId });
		expect(back.records.some((record) => record.type === "resync")).toBe(false);
		// A plain attach by the old id is a request for that session: it is opened from its file.
		const old = await Client.connect(url, controller);
		const reopened = await old.request({ type: "attach", sessionId });
		expect(reopened).toMatchObject({ success: true, data: { sessionId } });
		// An id that is neither live nor stored is refused, not answered with another session.
		const unknown = await old.request({ type: "attach", sessionId: "no-such-session" });
		expect(unknown).toMatchObject({ success: false, command: "attach" });
		expect(String(unknown.error)).toMatch(/No session .*"no-such-session"/);
	});

	it("refuses an attach to an id that is not live when sessions are not stored, instead of starting another", async () => {
		const { url, controller } = await startServer();
		const client = await Client.connect(url, controller);
		const unknown = await client.request({ type: "attach", sessionId: "no-such-session" });
		expect(unknown).toMatchObject({ success: false, command: "attach" });
		expect(String(unknown.error)).toContain('No session "no-such-session": none is live');
		expect(sessionsOf(await client.request({ type: "list_sessions" }))).toEqual([]);
	});

	it("goes on with a run after its client's connection is killed mid-stream; the client resumes with no loss or duplicate", async () => {
		const { url, controller } = await startServer();
		const a = await Client.connect(url, controller);
		const { data } = await a.request({ type: "attach", sessionId: null });
		const { sessionId } = data as { sessionId: string };
		const pieces = Array.from({ length: 40 }, (_value, index) => `piece ${index}. `);
		harness.llm.enqueue({ blocks: [{ type: "text", text: pieces.join(""), chunks: pieces }], delayMs: 15 });
		await a.request({ type: "prompt", message: "stream it" });
		await a.waitFor((record) => record.type === "message_update");
		a.socket.terminate();
		const lastSeen = a.events().at(-1)?.seq as number;
		const seenText = deltas(a.events());

		const back = await Client.connect(url, controller);
		const resumed = await back.request({ type: "attach", sessionId, afterSeq: lastSeen });
		expect(resumed.success).toBe(true);
		await back.waitFor((record) => record.type === "agent_settled");
		const seqs = back.events().map((record) => record.seq as number);
		expect(seqs).toEqual(seqs.map((_seq, index) => lastSeen + 1 + index));
		expect(seenText + deltas(back.events())).toBe(pieces.join(""));
	});

	it("unloads a session nobody attaches to, lists it as stored, and reopens it on attach", async () => {
		const { url, controller } = await startServer({ store: true, idleUnloadMs: 200 });
		const a = await Client.connect(url, controller);
		const { data } = await a.request({ type: "attach", sessionId: null });
		const { sessionId } = data as { sessionId: string };
		harness.llm.enqueue(textReply("remember me"));
		await a.request({ type: "prompt", message: "keep this" });
		await a.waitFor((record) => record.type === "agent_settled");
		await a.request({ type: "detach" });
		const listed = await until(
			async () => sessionsOf(await a.request({ type: "list_sessions" })),
			(sessions) => sessions.some((session) => session.id === sessionId && session.live === false),
		);
		expect(listed.find((session) => session.id === sessionId)).toMatchObject({
			live: false,
			attached: 0,
			firstMessage: "keep this",
			messageCount: 2,
		});
		const back = await a.request({ type: "attach", sessionId });
		expect((back.data as { state: Record_ }).state).toMatchObject({ sessionId, messageCount: 2 });
	});

	it("shows extension dialogs to every client; the first answer wins and every client is told", async () => {
		const { url, controller } = await startServer({ extensions: [DIALOGS] });
		const a = await Client.connect(url, controller);
		const b = await Client.connect(url, controller);
		const { data } = await a.request({ type: "attach", sessionId: null });
		const { sessionId } = data as { sessionId: string };
		await b.request({ type: "attach", sessionId });
		// An extension command's prompt is answered once the command is done (after the dialog).
		const prompted = a.request({ type: "prompt", message: "/ask" });
		const dialog = await a.waitFor((record) => record.type === "extension_ui_request" && record.method === "confirm");
		await b.waitFor((record) => record.type === "extension_ui_request" && record.id === dialog.id);

		const late = await Client.connect(url, controller);
		await late.request({ type: "attach", sessionId });
		expect(await late.waitFor((record) => record.type === "extension_ui_request")).toEqual(dialog);

		b.socket.send(JSON.stringify({ type: "extension_ui_response", id: dialog.id, confirmed: true }));
		for (const client of [a, b, late]) {
			const resolved = await client.waitFor((record) => record.type === "extension_ui_resolved");
			expect(resolved).toMatchObject({ id: dialog.id, by: "laptop" });
			await client.waitFor((record) => record.method === "notify" && record.message === "ask confirmed=true");
		}
		const from = a.records.length;
		a.socket.send(JSON.stringify({ type: "extension_ui_response", id: dialog.id, confirmed: false }));
		const refused = await a.waitFor((record) => record.type === "response", from);
		expect(refused).toMatchObject({ success: false, command: "extension_ui_response" });
		expect(String(refused.error)).toContain("already answered");
		expect(await prompted).toMatchObject({ success: true, data: { disposition: "handled" } });
	});

	it("closes a client that stopped reading (4008) while the others get every event", async () => {
		const { url, port, controller } = await startServer({ sendQueueBytes: 64 * 1024 });
		const fast = await Client.connect(url, controller);
		const { data } = await fast.request({ type: "attach", sessionId: null });
		const { sessionId } = data as { sessionId: string };

		// A client that attaches, then never reads again.
		const stuck = connect(port, "127.0.0.1");
		stuck.on("error", () => undefined);
		await new Promise<void>((resolve) => stuck.once("connect", () => resolve()));
		stuck.write(
			[
				"GET /ws HTTP/1.1",
				`Host: 127.0.0.1:${port}`,
				"Upgrade: websocket",
				"Connection: Upgrade",
				"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
				"Sec-WebSocket-Version: 13",
				`Authorization: Bearer ${controller}`,
				"",
				"",
			].join("\r\n"),
		);
		stuck.write(maskedTextFrame(JSON.stringify({ type: "attach", sessionId })));
		await until(
			async () => sessionsOf(await fast.request({ type: "list_sessions" }))[0]?.attached,
			(count) => count === 2,
		);
		stuck.pause();

		const long = "word ".repeat(400_000);
		harness.llm.enqueue(textReply(long));
		await fast.request({ type: "prompt", message: "a long answer" });
		await fast.waitFor((record) => record.type === "agent_settled");
		expect(deltas(fast.events())).toBe(long);
		// It was let go (code 4008, then its connection dropped): one client is left.
		await until(
			async () => sessionsOf(await fast.request({ type: "list_sessions" }))[0]?.attached,
			(count) => count === 1,
		);
		stuck.destroy();
	});
});

/** The text the message_update events carry, joined. */

/** One client-to-server WebSocket text frame (RFC 6455 5.2: clients mask what they send). */
function maskedTextFrame(text: string): Buffer {
	const payload = Buffer.from(text, "utf8");
	const mask = Buffer.from([1, 2, 3, 4]);
	const header =
		payload.length < 126
			? Buffer.from([0x81, 0x80 | payload.length])
			: Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
	const masked = Buffer.from(payload.map((byte, index) => byte ^ (mask[index % 4] as number)));
	return Buffer.concat([header, mask, masked]);
}
