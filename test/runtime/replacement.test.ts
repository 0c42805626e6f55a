import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UNSUPPORTED_DEFAULT_MESSAGE } from "../../src/runtime/models/model-selection.js";
import { textReply } from "../support/llm-server.js";
import { type RuntimeTree, runtimeTree, startSession } from "./helpers.js";

/** A saved default that names a provider models.json does not have: prompts are refused. */
const UNSUPPORTED = { defaultProvider: "gone", defaultModel: "vanished" };

/** A session file that recorded `provider/modelId` and one exchange. */
function sessionFile(tree: RuntimeTree, name: string, provider: string, modelId: string): string {
	const path = join(tree.sessionDir, `${name}.jsonl`);
	const time = "2026-01-01T00:00:00.000Z";
	const lines = [
		{
			type: "session",
			version: 3,
			id: `0192f3a0-0000-7000-8000-00000000000${name.length}`,
			timestamp: time,
			cwd: tree.cwd,
		},
		{ type: "model_change", id: "a0000001", parentId: null, timestamp: time, provider, modelId },
		{
			type: "message",
			id: "a0000002",
			parentId: "a0000001",
			timestamp: time,
			message: { role: "user", content: [{ type: "text", text: "earlier" }], timestamp: 1 },
		},
	];
	writeFileSync(path, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
	return path;
}

describe("the startup condition on replacement", () => {
	it("lifts when switching to a session whose model is available", async () => {
		const tree = runtimeTree(UNSUPPORTED);
		const working = sessionFile(tree, "working", "fake", "small");
		const { session } = startSession({ tree, steps: [textReply("answered")] });
		await expect(session.prompt("hello")).rejects.toThrow(UNSUPPORTED_DEFAULT_MESSAGE);
		await session.switchSession(working);
		expect(session.model).toMatchObject({ provider: "fake", id: "small" });
		await session.prompt("hello");
		expect(session.getLastAssistantText()).toBe("answered");
	});

	it("applies again when switching from a working session to one that would be blocked at launch", async () => {
		const tree = runtimeTree(UNSUPPORTED);
		const working = sessionFile(tree, "working", "fake", "small");
		const blocked = sessionFile(tree, "blocked-one", "gone", "vanished");
		const { session, stream } = startSession({ tree, create: { session: working }, steps: [textReply("fine")] });
		await session.prompt("hello");
		expect(session.getLastAssistantText()).toBe("fine");
		await session.switchSession(blocked);
		await expect(session.prompt("again")).rejects.toThrow(UNSUPPORTED_DEFAULT_MESSAGE);
		expect(stream.calls).toHaveLength(1);
		// An explicit choice lifts it again.
		session.setModel("other", "wide");
		await session.prompt("again");
		expect(stream.calls).toHaveLength(2);
	});

	it("applies again on new_session after an explicit choice lifted it", async () => {
		const { session } = startSession({ settings: UNSUPPORTED, steps: [textReply("one")] });
		session.setModel("fake", "small");
		await session.prompt("hello");
		await session.newSession();
		await expect(session.prompt("hello")).rejects.toThrow(UNSUPPORTED_DEFAULT_MESSAGE);
	});
});

describe("context usage derived from the session", () => {
	const lines = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`).join("\n");

	it("is unknown in a new process on a just-compacted session, as in the live one", async () => {
		const first = startSession({
			steps: [textReply("ok"), textReply("done", { usage: { input: 1000, output: 10 } }), textReply("2,10")],
		});
		await first.session.prompt(lines);
		await first.session.prompt("second");
		await first.session.compact();
		expect(first.session.getSessionStats().contextUsage?.tokens).toBeNull();
		const file = first.session.session.file ?? "";
		await first.session.dispose();

		const reopened = startSession({ tree: first.tree, create: { session: file } });
		expect(reopened.session.getSessionStats().contextUsage).toEqual({
			tokens: null,
			contextWindow: 100_000,
			percent: null,
		});
	});

	it("is known again in a fresh session after a compaction and new_session", async () => {
		const { session } = startSession({
			steps: [textReply("ok"), textReply("done", { usage: { input: 1000, output: 10 } }), textReply("2,10")],
		});
		await session.prompt(lines);
		await session.prompt("second");
		await session.compact();
		await session.newSession();
		expect(session.getSessionStats().contextUsage).toEqual({ tokens: 0, contextWindow: 100_000, percent: 0 });
	});
});

describe("queued messages and replacement", () => {
	it("delivers steering queued after new_session in the new session", async () => {
		const { session, stream } = startSession({ steps: [textReply("old"), textReply("new")] });
		await session.prompt("in the old session");
		await session.newSession();
		await session.steer("steered into the new one");
		await session.prompt("go");
		const request = JSON.stringify(stream.calls.at(-1)?.context.messages);
		expect(request).toContain("steered into the new one");
		expect(request).not.toContain("in the old session");
	});
});
