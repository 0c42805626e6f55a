import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createEntryId, uuidv7 } from "../../src/session/ids.js";
import {
	continueRecentSession,
	createSession,
	findRecentSession,
	findSessionById,
	openSessionById,
} from "../../src/session/open.js";
import { defaultSessionDir, encodeCwd } from "../../src/session/paths.js";
import { assistant, user, useTempDir } from "./helpers.js";

const temp = useTempDir();

function writeSession(dir: string, name: string, id: string, cwd: string, mtimeSeconds: number): string {
	const path = join(dir, name);
	writeFileSync(
		path,
		`${JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-01-01T00:00:00.000Z", cwd })}\n`,
	);
	utimesSync(path, mtimeSeconds, mtimeSeconds);
	return path;
}

describe("paths and ids", () => {
	it("encodes the cwd into one directory name", () => {
		expect(encodeCwd("/home/u/proj")).toBe("--home-u-proj--");
		expect(defaultSessionDir("/home/u/proj", "/agent")).toBe("/agent/sessions/--home-u-proj--");
	});

	it("makes time-ordered UUIDv7 session ids and 8-hex entry ids that avoid collisions", () => {
		const early = uuidv7(Date.UTC(2026, 0, 1));
		const late = uuidv7(Date.UTC(2026, 0, 2));
		expect(early).toMatch(/^019b76da-a800-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
		expect(early < late).toBe(true);
		const taken = new Set<string>();
		for (let index = 0; index < 1000; index++) {
			const id = createEntryId((candidate) => taken.has(candidate));
			expect(taken.has(id)).toBe(false);
			taken.add(id);
		}
		expect(createEntryId(() => true)).toMatch(/^[0-9a-f-]{36}$/);
	});

	it("puts new sessions under <agentDir>/sessions/<encoded cwd>", () => {
		const session = temp.track(createSession({ cwd: "/home/u/proj", agentDir: temp.dir(), id: "my-id" }));
		session.appendMessage(user("q"));
		session.appendMessage(assistant("a"));
		expect(session.file).toBe(
			join(temp.dir(), "sessions", "--home-u-proj--", `${session.header.timestamp.replace(/[:.]/g, "-")}_my-id.jsonl`),
		);
		expect(() => createSession({ cwd: "/x", agentDir: temp.dir(), id: "../escape" })).toThrow(
			'Invalid session id: "../escape"',
		);
	});
});

describe("continue and open by id", () => {
	it("continues the most recently modified session of the cwd", () => {
		const dir = defaultSessionDir("/proj", temp.dir());
		const location = { cwd: "/proj", agentDir: temp.dir() };
		expect(findRecentSession(location)).toBeUndefined();
		const fresh = temp.track(continueRecentSession(location));
		expect(fresh.entries()).toEqual([]);
		fresh.close();

		createSession(location).close();
		expect(existsSync(dir)).toBe(false);
		mkdirSync(dir, { recursive: true });
		writeSession(dir, "a.jsonl", "aaa", "/proj", 1000);
		const newest = writeSession(dir, "b.jsonl", "bbb", "/proj", 3000);
		writeFileSync(join(dir, "c.jsonl"), "not a session\n");
		utimesSync(join(dir, "c.jsonl"), 5000, 5000);
		const continued = temp.track(continueRecentSession(location));
		expect(continued.file).toBe(newest);
		expect(continued.id).toBe("bbb");
	});

	it("filters a custom session dir by the header's cwd", () => {
		const dir = join(temp.dir(), "custom");
		mkdirSync(dir);
		const mine = writeSession(dir, "mine.jsonl", "m1", "/proj", 1000);
		writeSession(dir, "other.jsonl", "o1", "/elsewhere", 2000);
		expect(findRecentSession({ cwd: "/proj", sessionDir: dir })).toBe(mine);
		expect(findRecentSession({ cwd: "/nowhere", sessionDir: dir })).toBeUndefined();
	});

	it("opens by exact id or unique prefix and fails loudly otherwise", () => {
		const location = { cwd: "/proj", agentDir: temp.dir() };
		const dir = defaultSessionDir("/proj", temp.dir());
		mkdirSync(dir, { recursive: true });
		const exact = writeSession(dir, "1.jsonl", "abc", "/proj", 1000);
		const longer = writeSession(dir, "2.jsonl", "abcdef", "/proj", 2000);
		writeSession(dir, "3.jsonl", "abxyz", "/proj", 3000);
		expect(findSessionById("abc", location)).toBe(exact);
		expect(findSessionById("abcd", location)).toBe(longer);
		expect(temp.track(openSessionById("abcd", location)).id).toBe("abcdef");
		expect(() => findSessionById("ab", location)).toThrow(`Session id prefix "ab" is ambiguous in ${dir}:`);
		expect(() => findSessionById("zzz", location)).toThrow(`No session found matching "zzz" in ${dir}`);
	});
});
