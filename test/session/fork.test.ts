import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createSession, inMemorySession, openSession } from "../../src/session/open.js";
import { assistant, user, useTempDir } from "./helpers.js";

const temp = useTempDir();

function savedSession() {
	const session = temp.track(createSession({ cwd: temp.dir(), sessionDir: temp.dir() }));
	const q1 = session.appendMessage(user("first question"));
	const label = session.setLabel(q1.id, "important");
	const a1 = session.appendMessage(assistant("first answer"));
	const q2 = session.appendMessage({
		role: "user",
		content: [
			{ type: "text", text: "second " },
			{ type: "text", text: "question" },
		],
		timestamp: 9,
	});
	const a2 = session.appendMessage(assistant("second answer"));
	return { session, q1, label, a1, q2, a2 };
}

function fileLines(path: string): Record<string, unknown>[] {
	return readFileSync(path, "utf8")
		.trimEnd()
		.split("\n")
		.map((line) => JSON.parse(line));
}

describe("forkBefore", () => {
	it("writes a new file holding the branch up to before a user message and returns its text", () => {
		const { session, q1, label, a1, q2 } = savedSession();
		const { session: fork, text } = session.forkBefore(q2.id);
		temp.track(fork);
		expect(text).toBe("second question");
		expect(fork.id).not.toBe(session.id);
		expect(fork.header.parentSession).toBe(session.file);
		expect(fork.isPersisted).toBe(true);
		expect(dirname(fork.file ?? "")).toBe(temp.dir());

		const entries = fork.entries();
		expect(entries.map((e) => e.id).slice(0, 2)).toEqual([q1.id, a1.id]);
		expect(entries[1]).toEqual({ ...a1, parentId: q1.id });
		const recreated = entries[2];
		expect(recreated).toEqual({
			type: "label",
			id: recreated?.id,
			parentId: a1.id,
			timestamp: label.timestamp,
			targetId: q1.id,
			label: "important",
		});
		expect(recreated?.id).not.toBe(label.id);
		expect(fork.leafId).toBe(recreated?.id);
		expect(fork.getLabel(q1.id)).toBe("important");

		const lines = fileLines(fork.file ?? "");
		expect(lines[0]).toMatchObject({
			type: "session",
			version: 3,
			id: fork.id,
			parentSession: session.file,
			cwd: temp.dir(),
		});
		expect(lines.slice(1)).toEqual(JSON.parse(JSON.stringify(entries)));
		expect(session.entries()).toHaveLength(5);
	});

	it("makes an empty session when forking before the first message", () => {
		const { session, q1 } = savedSession();
		const { session: fork, text } = session.forkBefore(q1.id);
		temp.track(fork);
		expect(text).toBe("first question");
		expect(fork.entries()).toEqual([]);
		expect(fork.header.parentSession).toBe(session.file);
		expect(existsSync(fork.file ?? "")).toBe(false);
	});

	it("refuses entries that are not user messages, and branches a session as soon as it has entries", () => {
		const { session, a1, label } = savedSession();
		expect(() => session.forkBefore(a1.id)).toThrow("Invalid entry ID for forking");
		expect(() => session.forkBefore(label.id)).toThrow("Invalid entry ID for forking");
		expect(() => session.forkBefore("missing")).toThrow("Invalid entry ID for forking");

		// Every entry is on disk once appended: a session with one question can be branched already.
		const early = temp.track(createSession({ cwd: temp.dir(), sessionDir: temp.dir() }));
		const question = early.appendMessage(user("q"));
		expect(early.isPersisted).toBe(true);
		expect(() => temp.track(early.cloneAtLeaf())).not.toThrow();
		expect(temp.track(early.forkBefore(question.id).session).entries()).toEqual([]);
	});

	it("forks in memory without a parent session", () => {
		const session = inMemorySession({ cwd: "/work" });
		session.appendMessage(user("q1"));
		session.appendMessage(assistant("a1"));
		const q2 = session.appendMessage(user("q2"));
		const { session: fork, text } = session.forkBefore(q2.id);
		expect(text).toBe("q2");
		expect(fork.file).toBeUndefined();
		expect(fork.header.parentSession).toBeUndefined();
		expect(fork.entries()).toHaveLength(2);
	});
});

describe("cloneAtLeaf", () => {
	it("copies the active branch with its ids, re-creates labels and keeps entries of unknown types", () => {
		const header = { type: "session", version: 3, id: "src", timestamp: "2026-01-01T00:00:00.000Z", cwd: temp.dir() };
		const at = (second: number) => `2026-01-01T00:00:0${second}.000Z`;
		const records = [
			header,
			{ type: "message", id: "m1", parentId: null, timestamp: at(1), message: user("q") },
			{ type: "label", id: "l1", parentId: "m1", timestamp: at(2), targetId: "m1", label: "start" },
			{ type: "vendor_marker", id: "v1", parentId: "l1", timestamp: at(3), payload: { keep: true } },
			{ type: "message", id: "m2", parentId: "v1", timestamp: at(4), message: assistant("a") },
			{ type: "message", id: "x1", parentId: "m1", timestamp: at(5), message: assistant("other branch") },
		];
		const path = join(temp.dir(), "source.jsonl");
		writeFileSync(path, records.map((record) => `${JSON.stringify(record)}\n`).join(""));
		const session = temp.track(openSession(path));
		session.branch("m2");

		const clone = temp.track(session.cloneAtLeaf());
		const lines = fileLines(clone.file ?? "");
		expect(lines[0]).toMatchObject({ id: clone.id, parentSession: path });
		expect(lines.slice(1, 4)).toEqual([records[1], { ...records[3], parentId: "m1" }, records[4]]);
		expect(lines[4]).toMatchObject({ type: "label", parentId: "m2", timestamp: at(2), targetId: "m1", label: "start" });
		expect(lines).toHaveLength(5);

		clone.close();
		const reopened = temp.track(openSession(clone.file ?? ""));
		expect(reopened.getBranch().map((e) => e.id)).toEqual(["m1", "v1", "m2", lines[4]?.id]);
		expect(reopened.buildContext().messages.map((m) => m.role)).toEqual(["user", "assistant"]);
	});

	it("refuses an empty position and writes a clone without replies at once", () => {
		const { session } = savedSession();
		session.resetLeaf();
		expect(() => session.cloneAtLeaf()).toThrow("Cannot clone session: no current entry selected");
		session.appendMessage(user("new root"));
		const clone = temp.track(session.cloneAtLeaf());
		expect(clone.entries()).toHaveLength(1);
		expect(fileLines(clone.file ?? "")).toHaveLength(2);
		clone.appendMessage(assistant("reply"));
		expect(fileLines(clone.file ?? "")).toHaveLength(3);
	});
});

describe("userMessagesForForking", () => {
	it("lists user messages with text across all branches in append order", () => {
		const session = inMemorySession({ cwd: "/work" });
		const q1 = session.appendMessage(user("first"));
		session.appendMessage(assistant("a1"));
		session.appendMessage(user(""));
		session.branch(q1.id);
		const q2 = session.appendMessage({
			role: "user",
			content: [
				{ type: "text", text: "on " },
				{ type: "text", text: "a branch" },
			],
			timestamp: 1,
		});
		session.appendCustomMessage({ customType: "note", content: "not a user message", display: true });
		expect(session.userMessagesForForking()).toEqual([
			{ entryId: q1.id, text: "first" },
			{ entryId: q2.id, text: "on a branch" },
		]);
	});
});

describe("switching files", () => {
	it("reopens a fork by path with the same entries and leaf", () => {
		const { session, q2 } = savedSession();
		const { session: fork } = session.forkBefore(q2.id);
		const entries = [...fork.entries()];
		const file = fork.file ?? "";
		fork.close();
		const switched = temp.track(openSession(file));
		expect(switched.entries()).toEqual(entries);
		expect(switched.leafId).toBe(entries.at(-1)?.id);
		expect(switched.header.parentSession).toBe(session.file);
	});
});
