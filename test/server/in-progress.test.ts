/**
 * A client that attaches in the middle of a run is told what it missed of it (`inProgress`): the
 * reply so far, which the deltas after the answer's seq continue with nothing twice, and the tool
 * calls that run with their output so far. Also in a resync.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textReply, toolReply } from "../support/llm-server.js";
import { Client, deltas, type Record_, startServer, useServeHarness } from "./harness.js";

const harness = useServeHarness();

/** A promise and the function that settles it. */
function gate(): { until: Promise<void>; release: () => void } {
	let release: () => void = () => undefined;
	const until = new Promise<void>((resolve) => {
		release = resolve;
	});
	return { until, release };
}

function objectAt(value: unknown, key: string): Record_ {
	const inner = typeof value === "object" && value !== null ? (value as Record_)[key] : undefined;
	if (typeof inner !== "object" || inner === null || Array.isArray(inner)) throw new Error(`no object at ${key}`);
	return inner as Record_;
}

function textOf(message: Record_): string {
	const content = Array.isArray(message.content) ? message.content : [];
	return content.map((block: Record_) => (block.type === "text" ? String(block.text) : "")).join("");
}

describe("atomic serve: a run under way", () => {
	it("gives a client that attaches mid-reply the reply so far, which the later deltas continue exactly", async () => {
		const { url, controller } = await startServer();
		const a = await Client.connect(url, controller);
		const { data } = await a.request({ type: "attach", sessionId: null });
		const { sessionId } = data as { sessionId: string };
		const pieces = Array.from({ length: 30 }, (_value, index) => `part${index} `);
		const held = gate();
		harness.llm.enqueue({
			blocks: [{ type: "text", text: pieces.join(""), chunks: pieces }],
			holdAfter: { frames: 10, until: held.until },
		});
		try {
			await a.request({ type: "prompt", message: "go" });
			await a.waitFor((record) => record.type === "message_update" && deltas(a.events()).includes("part5 "));

			const b = await Client.connect(url, controller);
			const attached = await b.request({ type: "attach", sessionId });
			const inProgress = objectAt(attached.data, "inProgress");
			const message = objectAt(inProgress, "message");
			expect(message).toMatchObject({ role: "assistant" });
			expect(inProgress.tools).toEqual([]);
			const soFar = textOf(message);
			expect(soFar).toBe(deltas(a.events()));
			held.release();
			await b.waitFor((record) => record.type === "agent_settled");
			expect(soFar + deltas(b.events())).toBe(pieces.join(""));
		} finally {
			held.release();
		}
		// Nothing runs: nothing under way.
		const c = await Client.connect(url, controller);
		const idle = await c.request({ type: "attach", sessionId });
		expect(idle.data).not.toHaveProperty("inProgress");
	});

	it("gives it the tool calls that run, with their output so far; a resync carries the same", async () => {
		const { url, controller, dirs } = await startServer({ replayLimits: { events: 5, bytes: 1 << 20 } });
		const a = await Client.connect(url, controller);
		const { data } = await a.request({ type: "attach", sessionId: null });
		const { sessionId } = data as { sessionId: string };
		const command = "n=0; while [ ! -f release ]; do n=$((n+1)); echo tick$n; sleep 0.05; done; echo released";
		harness.llm.enqueue(toolReply("bash", { command }), textReply("loop over"));
		try {
			await a.request({ type: "prompt", message: "loop" });
			await a.waitFor((record) => record.type === "tool_execution_update" && JSON.stringify(record).includes("tick3"));

			const b = await Client.connect(url, controller);
			const attached = await b.request({ type: "attach", sessionId });
			const [tool] = objectAt(attached.data, "inProgress").tools as Record_[];
			expect(tool).toMatchObject({ toolName: "bash", args: { command } });
			expect(JSON.stringify(tool?.partialResult)).toContain("tick3");
			// The reply that asked for the tool has ended: no message under way.
			expect(objectAt(attached.data, "inProgress")).not.toHaveProperty("message");

			// A client that was away for longer than the session keeps events gets it in its resync.
			const c = await Client.connect(url, controller);
			await c.request({ type: "attach", sessionId, afterSeq: 0 });
			const resync = await c.waitFor((record) => record.type === "resync");
			const [again] = objectAt(resync, "inProgress").tools as Record_[];
			expect(again).toMatchObject({ toolCallId: tool?.toolCallId, toolName: "bash" });
		} finally {
			writeFileSync(join(dirs.work, "release"), "");
		}
		await a.waitFor((record) => record.type === "agent_settled");
	});

	it("answers abort after the run's end, on the connection that sent it, as on stdio", async () => {
		const { url, controller } = await startServer();
		const a = await Client.connect(url, controller);
		const b = await Client.connect(url, controller);
		const { data } = await a.request({ type: "attach", sessionId: null });
		await b.request({ type: "attach", sessionId: (data as { sessionId: string }).sessionId });
		const pieces = Array.from({ length: 400 }, (_value, index) => `w${index} `);
		harness.llm.enqueue({ blocks: [{ type: "text", text: pieces.join(""), chunks: pieces }], delayMs: 2 });
		await a.request({ type: "prompt", message: "go" });
		await a.waitFor((record) => record.type === "message_update");
		const from = a.records.length;
		const aborted = await a.request({ type: "abort" });
		expect(aborted.success).toBe(true);
		const order = a.records.slice(from).map((record) => record.type);
		expect(order.indexOf("agent_end")).toBeGreaterThanOrEqual(0);
		expect(order.indexOf("agent_end")).toBeLessThan(order.indexOf("response"));
		// The other client gets the events, not the response.
		await b.waitFor((record) => record.type === "agent_end");
		expect(b.records.some((record) => record.type === "response" && record.command === "abort")).toBe(false);
	});
});
