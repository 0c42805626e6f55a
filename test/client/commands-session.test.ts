import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type RpcClient, RpcCommandError } from "../../src/index.js";
import { textReply } from "../support/llm-server.js";
import { nextEvent, startClient, useClientHarness } from "./helpers.js";

const harness = useClientHarness();

async function expectCommandError(promise: Promise<unknown>, command: string, errorText: string): Promise<void> {
	await expect(promise).rejects.toSatisfy(
		(error: unknown) => error instanceof RpcCommandError && error.command === command && error.errorText === errorText,
	);
}

/** One exchange ("first" answered "one"); returns the session file and the entry ids in order. */
async function oneExchange(client: RpcClient): Promise<{ sessionFile: string; entryIds: string[] }> {
	harness.server.enqueue(textReply("one"));
	await client.promptAndWait("first");
	const { sessionFile } = await client.getState();
	if (!sessionFile) throw new Error("the session has no file");
	const { entries } = await client.getEntries();
	return { sessionFile, entryIds: entries.map((entry) => entry.id) };
}

describe("session commands", () => {
	it("newSession starts empty; switchSession goes back to the first file", async () => {
		const { client } = await startClient(harness.server, { sessions: true });
		const { sessionFile } = await oneExchange(client);
		const first = await client.getState();
		const changed = nextEvent(client, "session_changed");
		expect(await client.newSession()).toEqual({ cancelled: false });
		expect(await changed).toMatchObject({ type: "session_changed", reason: "new" });
		const fresh = await client.getState();
		expect(fresh.sessionId).not.toBe(first.sessionId);
		expect(fresh.messageCount).toBe(0);
		expect(await client.switchSession(sessionFile)).toEqual({ cancelled: false });
		expect(await client.getState()).toMatchObject({ sessionId: first.sessionId, sessionFile, messageCount: 2 });
	});

	it("getEntries (all, after a cursor, unknown cursor) and getTree", async () => {
		const { client } = await startClient(harness.server, { sessions: true });
		const { entryIds } = await oneExchange(client);
		const { entries, leafId } = await client.getEntries();
		expect(entries.map((entry) => entry.type)).toContain("message");
		expect(leafId).toBe(entryIds.at(-1));
		const [firstId, ...rest] = entryIds;
		expect((await client.getEntries(firstId)).entries.map((entry) => entry.id)).toEqual(rest);
		await expectCommandError(client.getEntries("nope"), "get_entries", "Entry not found: nope");
		const tree = await client.getTree();
		expect(tree.leafId).toBe(leafId);
		expect(tree.tree[0]?.entry.id).toBe(firstId);
	});

	it("setLabel labels an entry (and refuses an unknown one)", async () => {
		const { client } = await startClient(harness.server, { sessions: true });
		const { entryIds } = await oneExchange(client);
		const target = entryIds[0] ?? "";
		await expect(client.setLabel(target, "start")).resolves.toBeUndefined();
		expect((await client.getTree()).tree[0]).toMatchObject({ entry: { id: target }, label: "start" });
		await expectCommandError(client.setLabel("nope", "x"), "set_label", "Entry nope not found");
	});

	it("getForkMessages, fork before a user message, and an invalid fork", async () => {
		const { client } = await startClient(harness.server, { sessions: true });
		await oneExchange(client);
		const forkable = await client.getForkMessages();
		expect(forkable.map((message) => message.text)).toEqual(["first"]);
		const before = await client.getState();
		expect(await client.fork(forkable[0]?.entryId ?? "")).toEqual({ text: "first", cancelled: false });
		const after = await client.getState();
		expect(after.sessionId).not.toBe(before.sessionId);
		expect(after.messageCount).toBe(0);
		await expectCommandError(client.fork("nope"), "fork", "Invalid entry ID for forking");
	});

	it("clone copies the branch; an empty session cannot be cloned", async () => {
		const { client } = await startClient(harness.server, { sessions: true });
		await expectCommandError(client.clone(), "clone", "Cannot clone session: no current entry selected");
		await oneExchange(client);
		const before = await client.getState();
		expect(await client.clone()).toEqual({ cancelled: false });
		const after = await client.getState();
		expect(after.sessionId).not.toBe(before.sessionId);
		expect(after.messageCount).toBe(2);
	});

	it("navigateTree moves to a user message and hands its text back; an unknown entry is refused", async () => {
		const { client } = await startClient(harness.server, { sessions: true });
		await oneExchange(client);
		const [userMessage] = await client.getForkMessages();
		expect(await client.navigateTree(userMessage?.entryId ?? "")).toEqual({ cancelled: false, editorText: "first" });
		expect((await client.getState()).messageCount).toBe(0);
		await expectCommandError(client.navigateTree("nope"), "navigate_tree", "Entry nope not found");
	});

	it("importSession loads a copy of a session file; a missing file is refused", async () => {
		const { client } = await startClient(harness.server, { sessions: true });
		const { sessionFile } = await oneExchange(client);
		await client.newSession();
		expect(await client.importSession(sessionFile)).toEqual({ cancelled: false });
		expect((await client.getState()).messageCount).toBe(2);
		await expectCommandError(
			client.importSession("/nonexistent/session.jsonl"),
			"import_session",
			"File not found: /nonexistent/session.jsonl",
		);
	});

	it("exportHtml without a path writes atomic-session-<id>.html in the working directory", async () => {
		const { client, dirs } = await startClient(harness.server, { sessions: true });
		await oneExchange(client);
		const { sessionId } = await client.getState();
		const path = await client.exportHtml();
		expect(path).toBe(join(dirs.work, `atomic-session-${sessionId}.html`));
		expect(existsSync(path)).toBe(true);
	});
});
