import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readSessionHeader } from "../../src/session/header-reader.js";
import { checkImportable, copyIntoSessionDir } from "../../src/session/import.js";
import { DEFAULT_SESSION_LIMITS, SessionFileTooLargeError, SessionLineTooLongError } from "../../src/session/limits.js";
import { createSession, openSession } from "../../src/session/open.js";
import { assistant, user, useTempDir, warnings } from "./helpers.js";

const temp = useTempDir();
const small = { maxFileBytes: 64 * 1024, maxLineBytes: 8 * 1024 };

const header = { type: "session", version: 3, id: "s-1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/work" };
function entry(id: string, parentId: string | null, text: string) {
	return { type: "message", id, parentId, timestamp: "2026-01-01T00:00:01.000Z", message: user(text) };
}

function sessionFile(name = "s.jsonl", records: unknown[] = [header, entry("a1", null, "one")]): string {
	const path = join(temp.dir(), name);
	writeFileSync(path, records.map((record) => `${JSON.stringify(record)}\n`).join(""));
	return path;
}

function fifo(name: string): string {
	const path = join(temp.dir(), name);
	execFileSync("mkfifo", [path]);
	return path;
}

describe("opening what is not a session file", () => {
	it("refuses a FIFO at once instead of waiting for a writer", () => {
		const path = fifo("pipe.jsonl");
		expect(() => openSession(path)).toThrow(`${path} is a FIFO (named pipe), not a regular file`);
		expect(readSessionHeader(path)).toBeUndefined();
		// The refused open left no claim or lock behind.
		expect(() => openSession(path)).toThrow("not a regular file");
	});

	it("refuses /dev/zero instead of reading it for ever", () => {
		expect(() => openSession("/dev/zero")).toThrow("/dev/zero is a character device, not a regular file");
		expect(readSessionHeader("/dev/zero")).toBeUndefined();
	});

	it("refuses a file over the size limit before reading it", () => {
		const path = sessionFile();
		truncateSync(path, small.maxFileBytes + 1);
		expect(() => openSession(path, { limits: small })).toThrow(SessionFileTooLargeError);
		expect(() => openSession(path, { limits: small })).toThrow(
			`Session file ${path} is too large to open (64.0 KB; at most 64.0 KB)`,
		);
	});

	it("refuses a line over the limit having held no more than the limit of it", () => {
		const path = sessionFile();
		// A sparse stretch of NUL bytes: a line that never ends, as /dev/zero would be.
		truncateSync(path, statSync(path).size + 40 * 1024);
		expect(() => openSession(path, { limits: small })).toThrow(SessionLineTooLongError);
		expect(() => openSession(path, { limits: small })).toThrow(
			new RegExp(`Session file ${path} has a line longer than 8\\.0 KB at byte \\d+`),
		);
	});

	it("defaults to limits a real session stays far below", () => {
		expect(DEFAULT_SESSION_LIMITS).toEqual({ maxFileBytes: 512 * 1024 * 1024, maxLineBytes: 128 * 1024 * 1024 });
	});
});

describe("writing within the limits", () => {
	it("refuses an entry longer than a line may be, leaving file and memory as they were", () => {
		const session = temp.track(createSession({ cwd: temp.dir(), sessionDir: temp.dir(), limits: small }));
		session.appendMessage(user("fits"));
		const before = readFileSync(session.file ?? "", "utf8");
		expect(() => session.appendMessage(user("x".repeat(small.maxLineBytes)))).toThrow(SessionLineTooLongError);
		expect(readFileSync(session.file ?? "", "utf8")).toBe(before);
		expect(session.entries()).toHaveLength(1);
	});

	it("refuses to grow a file past the size limit, so that it always opens again", () => {
		const session = createSession({ cwd: temp.dir(), sessionDir: temp.dir(), limits: small });
		const text = "y".repeat(6 * 1024);
		let appended = 0;
		expect(() => {
			for (;;) {
				session.appendMessage(user(text));
				appended++;
			}
		}).toThrow("would grow past 64.0 KB (the most Atomic opens); start a new session");
		session.close();
		expect(statSync(session.file ?? "").size).toBeLessThanOrEqual(small.maxFileBytes);
		expect(temp.track(openSession(session.file ?? "", { limits: small })).entries()).toHaveLength(appended);
	});
});

describe("a first write over the size limit", () => {
	it("leaves no file behind", () => {
		const limits = { maxFileBytes: 1000, maxLineBytes: 8 * 1024 };
		const session = temp.track(createSession({ cwd: temp.dir(), sessionDir: temp.dir(), limits }));
		expect(() => session.appendMessage(user("z".repeat(2000)))).toThrow(SessionFileTooLargeError);
		expect(existsSync(session.file ?? "")).toBe(false);
		expect(session.entries()).toEqual([]);
	});
});

describe("every append starts on a fresh line", () => {
	it("ends a line another program left without its LF before appending", () => {
		const path = sessionFile();
		const session = temp.track(openSession(path));
		// Written after Atomic opened the file, so loading never saw it.
		const foreign = JSON.stringify(entry("f1", "a1", "from another program"));
		appendFileSync(path, foreign);
		const mine = session.appendMessage(assistant("mine"));
		session.close();
		expect(readFileSync(path, "utf8").endsWith(`${foreign}\n${JSON.stringify(mine)}\n`)).toBe(true);
		const { warn, lines } = warnings();
		const reopened = temp.track(openSession(path, { warn }));
		expect(lines).toEqual([]);
		expect(reopened.entries().map((e) => e.id)).toEqual(["a1", "f1", mine.id]);
	});

	it("keeps earlier history when a foreign torn line is garbage", () => {
		const path = sessionFile();
		const session = temp.track(openSession(path));
		appendFileSync(path, '{"type":"mess');
		const mine = session.appendMessage(assistant("mine"));
		session.close();
		const { warn, lines } = warnings();
		const reopened = temp.track(openSession(path, { warn }));
		expect(lines).toEqual([`Warning: skipped 1 invalid line in ${path}`]);
		expect(reopened.entries().map((e) => e.id)).toEqual(["a1", mine.id]);
	});

	it("does not cut a torn tail that another program completed after the load", () => {
		const path = sessionFile();
		const complete = JSON.stringify(entry("f1", "a1", "finished later"));
		appendFileSync(path, complete.slice(0, 20));
		const { warn } = warnings();
		const session = temp.track(openSession(path, { warn }));
		appendFileSync(path, `${complete.slice(20)}\n`);
		const mine = session.appendMessage(assistant("mine"));
		session.close();
		expect(
			temp
				.track(openSession(path))
				.entries()
				.map((e) => e.id),
		).toEqual(["a1", "f1", mine.id]);
	});

	it("checks the last byte only when the file is not as this writer left it", () => {
		const path = sessionFile();
		const session = temp.track(openSession(path));
		session.appendMessage(user("two"));
		session.appendMessage(user("three"));
		session.close();
		const text = readFileSync(path, "utf8");
		expect(text.includes("\n\n")).toBe(false);
		expect(text.split("\n")).toHaveLength(5);
	});
});

describe("import", () => {
	it("refuses a FIFO, a device and a missing file before copying anything", () => {
		const path = fifo("pipe.jsonl");
		expect(() => checkImportable(path)).toThrow(`Cannot import ${path}: it is a FIFO (named pipe), not a regular file`);
		expect(() => checkImportable("/dev/zero")).toThrow(
			"Cannot import /dev/zero: it is a character device, not a regular file",
		);
		expect(() => checkImportable(join(temp.dir(), "missing.jsonl"))).toThrow("File not found:");
	});

	it("refuses a file over the size limit and one that is not a session", () => {
		const big = sessionFile("big.jsonl");
		truncateSync(big, small.maxFileBytes + 1);
		expect(() => checkImportable(big, small)).toThrow("is too large to open");
		const other = join(temp.dir(), "notes.jsonl");
		writeFileSync(other, '{"hello":"world"}\n');
		expect(() => checkImportable(other)).toThrow(`Not an Atomic session file: ${other}`);
	});

	it("copies under a free name and never overwrites", () => {
		const source = sessionFile("s.jsonl");
		const target = join(temp.dir(), "sessions");
		const first = copyIntoSessionDir(source, target);
		const second = copyIntoSessionDir(source, target);
		expect(first).toBe(join(target, "s.jsonl"));
		expect(second).toBe(join(target, "s-1.jsonl"));
		expect(readFileSync(second, "utf8")).toBe(readFileSync(source, "utf8"));
		expect(copyIntoSessionDir(first, target)).toBe(first);
	});
});
