/**
 * Replacing the session in process: new, switch, fork and clone write the files they name, with
 * their parent, and carry the messages they should. The RPC test (test/rpc/session-files.test.ts)
 * keeps what needs a process: files on disk when a client is told, --no-session, exit.
 */
import { describe, expect, it } from "vitest";
import { jsonlFiles, readJsonl } from "../rpc/helpers.js";
import { textReply } from "../support/llm-server.js";
import { type Started, sentLines, startSession } from "./helpers.js";

function current(started: Started): { sessionFile: string; sessionId: string; messageCount: number } {
	const { sessionFile, sessionId, messageCount } = started.session.getState();
	if (!sessionFile) throw new Error("the session has no file");
	return { sessionFile, sessionId, messageCount };
}

/** Two prompts ("first", "second"); returns the state and the fork candidates. */
async function twoTurns(started: Started) {
	started.stream.push(textReply("answer one"), textReply("answer two"));
	await started.session.prompt("first");
	await started.session.prompt("second");
	return { before: current(started), forkIds: started.session.getForkMessages().map((message) => message.entryId) };
}

/** The message `promise` rejected with. */
async function rejection(promise: Promise<unknown>): Promise<string> {
	return promise.then(
		() => "resolved",
		(error: unknown) => (error instanceof Error ? error.message : String(error)),
	);
}

describe("replacing the session", () => {
	it("newSession starts an empty session that records its parent", async () => {
		const started = startSession();
		const { before } = await twoTurns(started);
		expect(await started.session.newSession({ parentSession: before.sessionFile })).toEqual({ cancelled: false });
		const after = current(started);
		expect(after.messageCount).toBe(0);
		expect(after.sessionId).not.toBe(before.sessionId);
		expect(after.sessionFile).not.toBe(before.sessionFile);
		expect(started.session.messages).toEqual([]);
		started.stream.push(textReply("fresh answer"));
		await started.session.prompt("fresh");
		expect(sentLines(started.stream.calls[2])).toEqual(["user: fresh"]);
		expect(readJsonl(after.sessionFile)[0]).toMatchObject({
			type: "session",
			id: after.sessionId,
			parentSession: before.sessionFile,
		});
		expect(jsonlFiles(started.tree.sessionDir).sort()).toEqual([before.sessionFile, after.sessionFile].sort());
	});

	it("switchSession back to the original file restores its messages", async () => {
		const started = startSession();
		const { before } = await twoTurns(started);
		await started.session.newSession();
		expect(await started.session.switchSession(before.sessionFile)).toEqual({ cancelled: false });
		expect(current(started)).toEqual({ sessionFile: before.sessionFile, sessionId: before.sessionId, messageCount: 4 });
		await started.session.prompt("third");
		expect(sentLines(started.stream.calls[2])).toEqual([
			"user: first",
			"assistant: answer one",
			"user: second",
			"assistant: answer two",
			"user: third",
		]);
		expect(readJsonl(before.sessionFile).filter((record) => record.type === "message")).toHaveLength(6);
	});

	it("fork starts a new file from before a user message and names its parent", async () => {
		const started = startSession();
		const { before, forkIds } = await twoTurns(started);
		expect(await started.session.fork(forkIds[1] ?? "")).toEqual({ text: "second", cancelled: false });
		const after = current(started);
		expect(after.sessionFile).not.toBe(before.sessionFile);
		expect(after.messageCount).toBe(2);
		const records = readJsonl(after.sessionFile);
		expect(records[0]).toMatchObject({ type: "session", id: after.sessionId, parentSession: before.sessionFile });
		expect(records.filter((record) => record.type === "message")).toHaveLength(2);
		expect(await rejection(started.session.fork("nope"))).toBe("Invalid entry ID for forking");
		const notUser = started.session.getEntries().entries[1]?.id ?? "";
		expect(await rejection(started.session.fork(notUser))).toBe("Invalid entry ID for forking");
	});

	it("clone copies the active branch into a new file", async () => {
		const started = startSession();
		expect(await rejection(started.session.clone())).toBe("Cannot clone session: no current entry selected");
		// A session holding only a name is already on disk: it can be cloned.
		started.session.setSessionName("named early");
		expect(await started.session.clone()).toEqual({ cancelled: false });
		const { before } = await twoTurns(started);
		expect(await started.session.clone()).toEqual({ cancelled: false });
		const after = current(started);
		expect(after.sessionFile).not.toBe(before.sessionFile);
		expect(after.messageCount).toBe(before.messageCount);
		const records = readJsonl(after.sessionFile);
		expect(records[0]).toMatchObject({ type: "session", parentSession: before.sessionFile });
		expect(records.filter((record) => record.type === "message")).toHaveLength(4);
		expect(records.filter((record) => record.type === "session_info")).toHaveLength(1);
	});
});
