/**
 * Prompts in process: the conversation carries over, a queueing hint is ignored while idle, and
 * replacing the session during a run aborts the run first. The RPC test (test/rpc/prompt.test.ts)
 * keeps the record order a client sees, tools, images, refusals and provider errors.
 */
import { describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import { sentLines, startSession } from "./helpers.js";

describe("prompt", () => {
	it("keeps the conversation across prompts", async () => {
		const { session, stream } = startSession({ steps: [textReply("first answer"), textReply("second answer")] });
		await session.prompt("one");
		await session.prompt("two");
		expect(sentLines(stream.calls[1])).toEqual(["user: one", "assistant: first answer", "user: two"]);
		expect(session.messages.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant"]);
		expect(session.messages[3]).toMatchObject({
			role: "assistant",
			content: [{ type: "text", text: "second answer" }],
		});
		expect(session.getState()).toMatchObject({ messageCount: 4, isStreaming: false });
	});

	it("ignores streamingBehavior while idle and runs the prompt", async () => {
		const { session, stream, of } = startSession({ steps: [textReply("ran")] });
		await session.prompt("now", { streamingBehavior: "followUp" });
		expect(of("queue_update")).toEqual([]);
		expect(stream.calls.map((call) => sentLines(call))).toEqual([["user: now"]]);
		expect(session.getLastAssistantText()).toBe("ran");
	});

	it("newSession during a run aborts it first, then starts empty", async () => {
		// The reply streams its first piece, then would wait a minute for the next: only the abort ends it.
		const { session, stream, events, next } = startSession({
			steps: [{ blocks: [{ type: "text", text: "cut short", chunks: 4 }], delayMs: 60_000 }, textReply("fresh")],
		});
		const running = session.prompt("long");
		await next((event) => event.type === "message_update");
		expect(await session.newSession()).toEqual({ cancelled: false });
		const replaced = events.length;
		await running;
		const agentEnd = events.findIndex((event) => event.type === "agent_end");
		expect(agentEnd).toBeGreaterThan(-1);
		expect(agentEnd).toBeLessThan(replaced);
		const ends = events.filter((event) => event.type === "message_end");
		expect(ends.at(-1)?.message).toMatchObject({ stopReason: "aborted" });
		expect(session.getState()).toMatchObject({ isStreaming: false, messageCount: 0 });
		await session.prompt("after");
		expect(sentLines(stream.calls[1])).toEqual(["user: after"]);
	});
});
