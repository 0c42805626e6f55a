/**
 * Moving the leaf in process: to the parent of a user message (its text handed back), and refused
 * while a reply streams. The RPC test (test/rpc/tree-commands.test.ts) keeps the labels, the tree
 * as a client reads it and a summarised move with its options.
 */
import { describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import { type Started, sentLines, startSession } from "./helpers.js";

interface Entry {
	type: string;
	id: string;
	parentId: string | null;
	summary?: string;
	details?: unknown;
	targetId?: string;
	label?: string;
}

function entries(started: Started): Entry[] {
	return started.session.getEntries().entries as Entry[];
}

/** The message `promise` rejected with. */
async function rejection(promise: Promise<unknown>): Promise<string> {
	return promise.then(
		() => "resolved",
		(error: unknown) => (error instanceof Error ? error.message : String(error)),
	);
}

describe("navigateTree", () => {
	it("moves to the parent of a user message and hands its text back", async () => {
		const started = startSession({ steps: [textReply("one"), textReply("two"), textReply("other branch")] });
		const { session } = started;
		await session.prompt("first question");
		await session.prompt("second question");
		const list = entries(started);
		const second = list[2] as Entry;
		expect(await session.navigateTree(second.id)).toEqual({ cancelled: false, editorText: "second question" });
		expect(session.getState().messageCount).toBe(2);
		expect(session.getEntries().leafId).toBe(list[1]?.id);
		await session.prompt("another question");
		expect(sentLines(started.stream.calls.at(-1))).toEqual([
			"user: first question",
			"assistant: one",
			"user: another question",
		]);
		const children = entries(started).filter((entry) => entry.parentId === list[1]?.id);
		expect(children).toHaveLength(2);
	});

	it("refuses while streaming and rejects unknown entries", async () => {
		const started = startSession({ steps: [{ ...textReply("slow reply"), headersDelayMs: 60_000 }] });
		const { session } = started;
		expect(await rejection(session.navigateTree("missing"))).toBe("Entry missing not found");
		const running = session.prompt("go");
		await started.next((event) => event.type === "message_start" && event.message.role === "user");
		expect(await rejection(session.navigateTree("whatever"))).toBe(
			"Wait for the current response to finish before navigating the session tree.",
		);
		await session.abort();
		await running;
	});
});
