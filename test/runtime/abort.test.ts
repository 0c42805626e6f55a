import { describe, expect, it, vi } from "vitest";
import { textReply, toolReply } from "../support/llm-server.js";
import { startSession } from "./helpers.js";

const THIRTY_LINES = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`).join("\n");

describe("abort()", () => {
	it("resolves at once when nothing runs", async () => {
		const { session, events } = startSession();
		await session.abort();
		expect(events.map((event) => event.type)).toEqual([]);
	});

	it("resolves once the run has ended: its tool stopped, agent_end and agent_settled emitted", async () => {
		const { session, next, of } = startSession({
			steps: [toolReply("bash", { command: "sleep 30" }), textReply("never")],
		});
		const run = session.prompt("go");
		await next((event) => event.type === "tool_execution_start");
		await session.abort();
		expect(of("tool_execution_end")).toHaveLength(1);
		expect(of("agent_end")).toHaveLength(1);
		expect(of("agent_settled")).toHaveLength(1);
		expect(session.isStreaming).toBe(false);
		await run;
	});

	it("resolves once a manual compaction has stopped, and the compaction reports it was aborted", async () => {
		const { session, stream, next, of } = startSession({
			steps: [textReply("ok"), textReply("done", { usage: { input: 1000, output: 10 } })],
		});
		await session.prompt(THIRTY_LINES);
		await session.prompt("second");
		stream.push(textReply("2,10", { headersDelayMs: 30_000 }));
		const compaction = session.compact();
		const rejected = expect(compaction).rejects.toThrow("Compaction cancelled");
		await next((event) => event.type === "compaction_start");
		await session.abort();
		expect(session.isCompacting).toBe(false);
		expect(of("compaction_end")).toEqual([
			{ type: "compaction_end", reason: "manual", result: null, aborted: true, willRetry: false },
		]);
		await rejected;
	});

	it("resolves once a branch summary has stopped; the navigation is cancelled and the leaf stays", async () => {
		const { session, stream } = startSession({ steps: [textReply("first"), textReply("second")] });
		await session.prompt("one");
		await session.prompt("two");
		const { entries } = session.getEntries();
		const firstUser = entries.find((entry) => entry.type === "message");
		const leaf = session.session.leafId;
		stream.push(textReply("summary", { headersDelayMs: 30_000 }));
		const navigation = session.navigateTree(firstUser?.id ?? "", { summarize: true });
		await vi.waitUntil(() => stream.calls.length === 3);
		await session.abort();
		expect(await navigation).toEqual({ cancelled: true });
		expect(session.session.leafId).toBe(leaf);
	});

	it("reaches a prompt still being accepted: its run starts aborted and is recorded", async () => {
		const { session, of } = startSession({ steps: [textReply("never sent")] });
		const run = session.prompt("go");
		const aborted = session.abort();
		await Promise.all([run, aborted]);
		const reply = of("message_end").at(-1)?.message;
		expect(reply).toMatchObject({ role: "assistant", stopReason: "aborted" });
		expect(session.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
	});

	it("keeps queued messages; the next prompt starts unaborted", async () => {
		const { session, next, stream } = startSession({ steps: [{ ...textReply("slow"), headersDelayMs: 30_000 }] });
		const run = session.prompt("go");
		await next((event) => event.type === "message_start");
		await session.followUp("later");
		await session.abort();
		await run;
		expect(session.getState().pendingMessageCount).toBe(1);
		stream.push(textReply("answered"));
		await session.prompt("again");
		expect(session.getLastAssistantText()).toBe("ok");
	});
});
