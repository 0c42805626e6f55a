import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listSessions } from "../../src/session/listing.js";
import { createSession, openSession } from "../../src/session/open.js";
import { SESSION_INDEX_FILE } from "../../src/session/session-index.js";
import { assistant, user, useTempDir, warnings } from "./helpers.js";

const temp = useTempDir();

function makeSession(cwd: string, question: string, time: number) {
	const session = temp.track(createSession({ cwd, sessionDir: temp.dir() }));
	session.appendMessage(user(question, time));
	session.appendMessage({ ...assistant(`answer to ${question}`), timestamp: time + 1 });
	return session;
}

function scans() {
	const seen: [string, number][] = [];
	return { onScan: (path: string, from: number) => seen.push([path, from]), seen };
}

describe("listSessions", () => {
	it("lists sessions newest first with their metadata", () => {
		const older = makeSession("/proj", "older question", 1_000);
		const newer = makeSession("/proj", "newer question", 5_000);
		newer.setName("the newer one");
		const other = makeSession("/elsewhere", "other project", 3_000);
		const fork = temp.track(newer.cloneAtLeaf());
		fork.appendMessage(user("asked in the clone", 6_000));
		writeFileSync(join(temp.dir(), "notes.jsonl"), "just text\n");
		writeFileSync(join(temp.dir(), "empty.jsonl"), "");

		const list = listSessions(temp.dir());
		expect(list.map((info) => info.id)).toEqual([fork.id, newer.id, other.id, older.id]);
		expect(list[0]).toMatchObject({ parentSessionPath: newer.file, messageCount: 3, modified: new Date(6_000) });
		expect(list[1]).toEqual({
			path: newer.file,
			id: newer.id,
			cwd: "/proj",
			name: "the newer one",
			created: new Date(newer.header.timestamp),
			modified: new Date(5_001),
			messageCount: 2,
			firstMessage: "newer question",
		});
		expect(listSessions(temp.dir(), "/proj").map((info) => info.id)).toEqual([fork.id, newer.id, older.id]);
		expect(listSessions(join(temp.dir(), "missing"))).toEqual([]);
	});

	it("reads only what changed since the last listing", () => {
		const first = makeSession("/proj", "first", 1_000);
		const second = makeSession("/proj", "second", 2_000);
		const cold = scans();
		listSessions(temp.dir(), undefined, cold);
		expect(cold.seen.map(([, from]) => from)).toEqual([0, 0]);
		expect(existsSync(join(temp.dir(), SESSION_INDEX_FILE))).toBe(true);

		const warm = scans();
		expect(listSessions(temp.dir(), undefined, warm).map((info) => info.messageCount)).toEqual([2, 2]);
		expect(warm.seen).toEqual([]);

		const file = first.file ?? "";
		const sizeBefore = readFileSync(file).length;
		first.appendMessage({ ...user("later", 9_000) });
		first.setName("renamed");
		const grown = scans();
		const list = listSessions(temp.dir(), undefined, grown);
		expect(grown.seen).toEqual([[file, sizeBefore]]);
		expect(list[0]).toMatchObject({
			id: first.id,
			messageCount: 3,
			name: "renamed",
			firstMessage: "first",
			modified: new Date(9_000),
		});
		expect(list[1]).toMatchObject({ id: second.id, messageCount: 2 });
	});

	it("rescans a file that shrank, and re-reads a torn last line once it is complete", () => {
		const session = makeSession("/proj", "question", 1_000);
		const file = session.file ?? "";
		listSessions(temp.dir());
		const complete = readFileSync(file, "utf8");

		const torn = JSON.stringify({
			type: "message",
			id: "t1",
			parentId: null,
			timestamp: "2026-01-01T00:00:00.000Z",
			message: user("q2", 7_000),
		});
		appendFileSync(file, torn.slice(0, 20));
		const partial = scans();
		expect(listSessions(temp.dir(), undefined, partial)[0]?.messageCount).toBe(2);
		expect(partial.seen).toEqual([[file, complete.length]]);
		appendFileSync(file, `${torn.slice(20)}\n`);
		const completed = scans();
		expect(listSessions(temp.dir(), undefined, completed)[0]?.messageCount).toBe(3);
		expect(completed.seen).toEqual([[file, complete.length]]);

		session.close();
		writeFileSync(file, complete.split("\n").slice(0, 2).join("\n") + "\n");
		const shrunk = scans();
		expect(listSessions(temp.dir(), undefined, shrunk)[0]?.messageCount).toBe(1);
		expect(shrunk.seen).toEqual([[file, 0]]);
		expect(temp.track(openSession(file)).entries()).toHaveLength(1);
	});

	it("still lists when the index cannot be written, and says so", () => {
		makeSession("/proj", "question", 1_000);
		mkdirSync(join(temp.dir(), SESSION_INDEX_FILE, "blocker"), { recursive: true });
		const { warn, lines } = warnings();
		expect(listSessions(temp.dir(), undefined, { warn })).toHaveLength(1);
		expect(lines).toHaveLength(1);
		expect(lines[0]).toContain(`Warning: could not update ${join(temp.dir(), SESSION_INDEX_FILE)}`);
	});
});
