import { describe, expect, it } from "vitest";
import type { ImageContent } from "../../src/llm/types.js";
import { COMPACTION_PREAMBLE } from "../../src/session/context.js";
import { INTERRUPTED_TOOL_RESULT_TEXT } from "../../src/session/interrupted-tools.js";
import { inMemorySession } from "../../src/session/open.js";
import { assistant, call, toolResult, user } from "./helpers.js";

const verbatim = { strategy: "verbatim-lines", promptVersion: 3 };

describe("context without a compaction boundary", () => {
	it("emits messages, custom messages and branch summaries of the active branch in order", () => {
		const session = inMemorySession({ cwd: "/work" });
		const q1 = session.appendMessage(user("q1"));
		session.appendMessage(assistant("abandoned"));
		session.branch(q1.id);
		session.appendCustomEntry("state", { n: 1 });
		const note = session.appendCustomMessage({ customType: "note", content: "n", display: false, details: { d: 1 } });
		const summary = session.branchWithSummary(note.id, "we explored another path");
		session.branchWithSummary(summary.id, "");
		session.setLabel(q1.id, "start");
		session.setName("context");
		session.appendMessage(assistant("a1"));

		const { messages } = session.buildContext();
		expect(messages).toEqual([
			user("q1"),
			{
				role: "custom",
				customType: "note",
				content: "n",
				display: false,
				details: { d: 1 },
				timestamp: Date.parse(note.timestamp),
			},
			{
				role: "branchSummary",
				summary: "we explored another path",
				fromId: note.id,
				timestamp: Date.parse(summary.timestamp),
			},
			assistant("a1"),
		]);
		expect(session.buildContextEntries().map((e) => e.type)).toEqual([
			"message",
			"custom_message",
			"branch_summary",
			"message",
		]);
	});

	it("replays the model and thinking level along the path", () => {
		const session = inMemorySession({ cwd: "/work" });
		expect(session.buildContext()).toEqual({ messages: [], model: null, thinkingLevel: "off" });
		session.appendModelChange("prov", "m1");
		session.appendThinkingLevelChange("high");
		expect(session.buildContext()).toMatchObject({ model: { provider: "prov", modelId: "m1" }, thinkingLevel: "high" });
		session.appendMessage(user("q"));
		const reply = session.appendMessage(assistant("a", { provider: "other", model: "m2" }));
		expect(session.buildContext().model).toEqual({ provider: "other", modelId: "m2" });
		session.append({ type: "thinking_level_change", thinkingLevel: "ludicrous" });
		expect(session.buildContext().thinkingLevel).toBe("high");
		session.appendModelChange("prov", "m3");
		session.appendThinkingLevelChange("low");
		expect(session.buildContext()).toMatchObject({ model: { provider: "prov", modelId: "m3" }, thinkingLevel: "low" });
		session.branch(reply.id);
		expect(session.buildContext()).toMatchObject({
			model: { provider: "other", modelId: "m2" },
			thinkingLevel: "high",
		});
	});

	it("leaves out a failed reply that was retried", () => {
		const session = inMemorySession({ cwd: "/work" });
		session.appendMessage(user("q1"));
		session.appendMessage(assistant("overloaded", { stopReason: "error" }));
		session.appendModelChange("fallback", "m2");
		session.appendMessage(assistant("a1"));
		session.appendMessage(user("q2"));
		session.appendMessage(assistant("failed and not retried", { stopReason: "error" }));
		session.appendMessage(user("q3"));
		const texts = session
			.buildContext()
			.messages.map((m) => (m.role === "assistant" ? `${m.stopReason}:${m.content.length}` : m.role));
		expect(texts).toEqual(["user", "stop:1", "user", "error:1", "user"]);
		expect(session.buildContextEntries()).toHaveLength(5);
	});

	it("adds an interrupted result for every tool call a crash left unanswered", () => {
		const session = inMemorySession({ cwd: "/work" });
		session.appendMessage(user("q1"));
		const reply = assistant("", { calls: [call("c1"), call("c2", "bash", { command: "rm x" })] });
		session.appendMessage(reply);
		session.appendMessage(toolResult("c1", "done"));
		const interrupted = {
			role: "toolResult",
			toolCallId: "c2",
			toolName: "bash",
			content: [{ type: "text", text: INTERRUPTED_TOOL_RESULT_TEXT }],
			isError: true,
			timestamp: reply.timestamp,
		};
		expect(session.buildContext().messages).toEqual([user("q1"), reply, toolResult("c1", "done"), interrupted]);
		expect(session.entries()).toHaveLength(3);

		session.appendMessage(user("what happened?"));
		const withoutAny = assistant("", { calls: [call("c3")] });
		session.appendMessage(withoutAny);
		session.appendMessage(user("again"));
		const roles = session
			.buildContext()
			.messages.map((m) => (m.role === "toolResult" ? `result:${m.toolCallId}` : m.role));
		expect(roles).toEqual(["user", "assistant", "result:c1", "result:c2", "user", "assistant", "result:c3", "user"]);

		const aborted = inMemorySession({ cwd: "/work" });
		aborted.appendMessage(assistant("", { calls: [call("c9")], stopReason: "aborted" }));
		expect(aborted.buildContext().messages).toHaveLength(1);
	});
});

describe("context with a compaction boundary", () => {
	const image: ImageContent = { type: "image", data: "aW1n", mimeType: "image/png" };

	function compactedSession(firstKept: "found" | "null" | "missing") {
		const session = inMemorySession({ cwd: "/work" });
		session.appendMessage(user("old question"));
		session.appendMessage(assistant("old answer"));
		session.appendCompaction({
			summary: "ignored lossy summary",
			firstKeptEntryId: null,
			tokensBefore: 1,
			details: { strategy: "other" },
		});
		const kept = session.appendMessage({
			role: "user",
			content: [{ type: "text", text: "look" }, image],
			timestamp: 5,
		});
		session.appendMessage(assistant("I see it"));
		const firstKeptEntryId = firstKept === "found" ? kept.id : firstKept === "null" ? null : "deadbeef";
		const boundary = session.appendCompaction({
			summary: "[User]: old question\n(filtered 3 lines)",
			firstKeptEntryId,
			tokensBefore: 900,
			details: verbatim,
		});
		session.appendThinkingLevelChange("medium");
		const after = session.appendMessage(user("new question"));
		return { session, kept, boundary, after };
	}

	it("replaces everything before the boundary with one message holding the summary and the kept tail", () => {
		const { session, kept, boundary, after } = compactedSession("found");
		const context = session.buildContext();
		expect(context.messages).toEqual([
			{
				role: "custom",
				customType: "compaction",
				display: true,
				details: verbatim,
				timestamp: Date.parse(boundary.timestamp),
				content: [
					{
						type: "text",
						text: `${COMPACTION_PREAMBLE}\n\n[User]: old question\n(filtered 3 lines)\n\n[User]: look\n`,
					},
					image,
					{ type: "text", text: "\n\n[Assistant]: I see it" },
				],
			},
			user("new question"),
		]);
		expect(context.thinkingLevel).toBe("medium");
		expect(context.model).toEqual({ provider: "test", modelId: "model-a" });
		expect(session.buildContextEntries().map((e) => e.id)).toEqual([
			boundary.id,
			kept.id,
			session.getBranch()[4]?.id,
			after.id,
		]);
	});

	it("uses the summary alone when the first kept entry is null or not on the path", () => {
		for (const firstKept of ["null", "missing"] as const) {
			const { session, boundary, after } = compactedSession(firstKept);
			const [first, ...rest] = session.buildContext().messages;
			expect(first).toMatchObject({
				role: "custom",
				customType: "compaction",
				content: [{ type: "text", text: `${COMPACTION_PREAMBLE}\n\n[User]: old question\n(filtered 3 lines)` }],
			});
			expect(rest).toEqual([user("new question")]);
			expect(session.buildContextEntries().map((e) => e.id)).toEqual([boundary.id, after.id]);
		}
	});

	it("applies only the last verbatim boundary on the path", () => {
		const { session } = compactedSession("null");
		session.appendMessage(assistant("new answer"));
		session.appendCompaction({ summary: "second summary", firstKeptEntryId: null, tokensBefore: 2, details: verbatim });
		session.appendMessage(user("latest"));
		const messages = session.buildContext().messages;
		expect(messages).toHaveLength(2);
		expect(messages[0]).toMatchObject({
			content: [{ type: "text", text: `${COMPACTION_PREAMBLE}\n\nsecond summary` }],
		});
	});
});
