import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { nodeIo } from "../../src/session/io.js";
import { createSession, inMemorySession, openSession } from "../../src/session/open.js";
import { SessionFileBusyError } from "../../src/session/writer-registry.js";
import { assistant, failingIo, user, useTempDir, warnings } from "./helpers.js";

const temp = useTempDir();

function lines(path: string): unknown[] {
	return readFileSync(path, "utf8")
		.split("\n")
		.filter((line) => line !== "")
		.map((line) => JSON.parse(line));
}

describe("file creation", () => {
	it("writes the header and the first entry with the first append: nothing waits in memory", () => {
		const session = temp.track(createSession({ cwd: temp.dir(), sessionDir: temp.dir() }));
		const file = session.file ?? "";
		expect(existsSync(file)).toBe(false);
		expect(session.isPersisted).toBe(false);
		const first = session.appendMessage(user("hello"));
		expect(session.isPersisted).toBe(true);
		expect(lines(file)).toHaveLength(2);
		session.appendModelChange("test", "model-a");
		const reply = session.appendMessage(assistant("hi"));
		const written = lines(file);
		expect(written).toHaveLength(4);
		expect(written[0]).toEqual({
			type: "session",
			version: 3,
			id: session.id,
			timestamp: session.header.timestamp,
			cwd: temp.dir(),
		});
		expect(written.slice(1).map((entry) => (entry as { id: string }).id)).toEqual([
			first.id,
			session.entries()[1]?.id,
			reply.id,
		]);
		expect(basename(file)).toBe(`${session.header.timestamp.replace(/[:.]/g, "-")}_${session.id}.jsonl`);
		expect(session.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
	});

	it("puts a name or a bash result given before any reply on disk at once", () => {
		const session = temp.track(createSession({ cwd: temp.dir(), sessionDir: temp.dir() }));
		const name = session.setName("early");
		expect(lines(session.file ?? "")).toEqual([expect.objectContaining({ type: "session" }), name]);
	});

	it("appends one line per entry after the first flush", () => {
		const session = temp.track(createSession({ cwd: temp.dir(), sessionDir: temp.dir() }));
		session.appendMessage(user("hello"));
		session.appendMessage(assistant("hi"));
		const file = session.file ?? "";
		const before = readFileSync(file, "utf8");
		const entry = session.setName("  my work  ");
		expect(readFileSync(file, "utf8")).toBe(`${before}${JSON.stringify(entry)}\n`);
		expect(entry).toMatchObject({ type: "session_info", name: "my work", parentId: session.entries()[1]?.id });
	});

	it("keeps in-memory sessions off the disk", () => {
		const session = inMemorySession({ cwd: temp.dir() });
		session.appendMessage(user("hello"));
		session.appendMessage(assistant("hi"));
		expect(session.file).toBeUndefined();
		expect(session.isPersisted).toBe(false);
		expect(readdirSync(temp.dir())).toEqual([]);
		expect(session.writeBackup("compact")).toBeUndefined();
	});

	it("writes an explicitly given missing path with its first entry", () => {
		const path = join(temp.dir(), "nested", "chosen.jsonl");
		const session = temp.track(openSession(path, { cwd: temp.dir() }));
		expect(existsSync(path)).toBe(false);
		session.appendMessage(user("hello"));
		expect(lines(path)).toHaveLength(2);
		expect(session.file).toBe(path);
	});

	it("initialises an empty existing file with a header on the first append", () => {
		const path = join(temp.dir(), "empty.jsonl");
		writeFileSync(path, "");
		const session = temp.track(openSession(path, { cwd: temp.dir() }));
		expect(session.entries()).toEqual([]);
		expect(statSync(path).size).toBe(0);
		session.appendMessage(user("hello"));
		const written = lines(path);
		expect(written[0]).toMatchObject({ type: "session", version: 3, id: session.id });
		expect(written).toHaveLength(2);
	});
});

describe("a file removed behind the session's back", () => {
	it("is written again whole, header first, at the next append", () => {
		const session = createSession({ cwd: temp.dir(), sessionDir: temp.dir() });
		session.appendMessage(user("hello"));
		session.appendMessage(assistant("hi"));
		const file = session.file ?? "";
		session.close();
		const reopened = temp.track(openSession(file));
		rmSync(file);
		reopened.appendMessage(user("still here"));
		const written = lines(file);
		expect(written[0]).toMatchObject({ type: "session", id: session.id });
		expect(written).toHaveLength(4);
	});
});

describe("a new session's file", () => {
	it("appears whole: its first lines are written elsewhere and renamed into place, so a kill leaves no empty file", () => {
		let path = "";
		const existedAtWrite: boolean[] = [];
		const io = {
			...nodeIo,
			write(fd: number, buffer: Buffer, offset: number, length: number): number {
				existedAtWrite.push(existsSync(path));
				return nodeIo.write(fd, buffer, offset, length);
			},
		};
		const dir = temp.dir();
		const session = temp.track(createSession({ cwd: temp.dir(), sessionDir: dir, io }));
		path = session.file ?? "";
		session.appendMessage(user("hello"));
		expect(existedAtWrite[0]).toBe(false);
		expect(readdirSync(dir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
		session.appendMessage(user("again"));
		expect(existedAtWrite.at(-1)).toBe(true);
		session.close();
		expect(temp.track(openSession(path)).entries()).toHaveLength(2);
	});
});

describe("failed appends", () => {
	it("cuts the file back and undoes the entry when a write fails midway", () => {
		const io = failingIo();
		const session = temp.track(createSession({ cwd: temp.dir(), sessionDir: temp.dir(), io }));
		session.appendMessage(user("hello"));
		const reply = session.appendMessage(assistant("hi"));
		const file = session.file ?? "";
		const sizeBefore = statSync(file).size;
		const entriesBefore = [...session.entries()];

		io.failWrites = 1;
		expect(() => session.appendMessage(user("this write fails"))).toThrow("ENOSPC");
		expect(statSync(file).size).toBe(sizeBefore);
		expect(session.entries()).toEqual(entriesBefore);
		expect(session.leafId).toBe(reply.id);

		const later = session.appendMessage(user("this one works"));
		expect(later.parentId).toBe(reply.id);
		session.close();
		const { warn, lines: warned } = warnings();
		const reopened = temp.track(openSession(file, { warn }));
		expect(warned).toEqual([]);
		expect(reopened.entries().map((entry) => entry.id)).toEqual([...entriesBefore.map((entry) => entry.id), later.id]);
	});

	it("keeps the earlier name when a rename fails to be written", () => {
		const io = failingIo();
		const session = temp.track(createSession({ cwd: temp.dir(), sessionDir: temp.dir(), io }));
		session.appendMessage(user("hello"));
		session.setName("kept");
		expect(session.name).toBe("kept");
		io.failWrites = 1;
		expect(() => session.setName("lost")).toThrow("ENOSPC");
		expect(session.name).toBe("kept");
		session.appendMessage(user("next"));
		expect(session.name).toBe("kept");
	});

	it("removes the file and keeps nothing in memory when the first write fails", () => {
		const io = failingIo();
		const session = temp.track(createSession({ cwd: temp.dir(), sessionDir: temp.dir(), io }));
		const file = session.file ?? "";
		io.failWrites = 1;
		expect(() => session.appendMessage(user("hello"))).toThrow("ENOSPC");
		expect(existsSync(file)).toBe(false);
		expect(session.entries()).toEqual([]);
		expect(session.leafId).toBe(null);
		expect(session.isPersisted).toBe(false);

		session.appendMessage(user("hello again"));
		expect(lines(file)).toHaveLength(2);
	});

	it("restores an empty existing file to empty when the first write fails", () => {
		const io = failingIo();
		const path = join(temp.dir(), "empty.jsonl");
		writeFileSync(path, "");
		const session = temp.track(openSession(path, { cwd: temp.dir(), io }));
		io.failWrites = 1;
		expect(() => session.appendMessage(user("hello"))).toThrow("ENOSPC");
		expect(statSync(path).size).toBe(0);
	});
});

describe("one writer per file", () => {
	it("refuses a second writer for the same file in this process until the first closes", () => {
		const session = createSession({ cwd: temp.dir(), sessionDir: temp.dir() });
		session.appendMessage(user("hello"));
		session.appendMessage(assistant("hi"));
		const file = session.file ?? "";
		expect(() => openSession(file)).toThrow(SessionFileBusyError);
		expect(() => openSession(file)).toThrow(`Session file is already open for writing in this process: ${file}`);
		session.close();
		expect(() => session.appendMessage(user("late"))).toThrow(`Session ${session.id} is closed`);
		const reopened = temp.track(openSession(file));
		expect(reopened.entries()).toHaveLength(2);
	});

	it("releases the claim when opening fails", () => {
		const path = join(temp.dir(), "not-a-session.jsonl");
		writeFileSync(path, '{"hello":"world"}\n');
		expect(() => openSession(path)).toThrow(`Not an Atomic session file: ${path}`);
		writeFileSync(path, "");
		expect(() => temp.track(openSession(path))).not.toThrow();
	});
});

describe("backups", () => {
	it("copies the whole current file next to it", () => {
		const session = temp.track(createSession({ cwd: temp.dir(), sessionDir: temp.dir() }));
		// Before the first entry there is no file, so nothing to back up.
		expect(session.writeBackup("compact")).toBeUndefined();
		session.appendMessage(user("hello"));
		session.appendMessage(assistant("hi"));
		const backup = session.writeBackup("Auto Compact") ?? "";
		const file = session.file ?? "";
		expect(backup.startsWith(`${file}.`)).toBe(true);
		expect(backup).toMatch(/\.\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z\.auto-compact\.bak$/);
		expect(readFileSync(backup, "utf8")).toBe(readFileSync(file, "utf8"));
	});
});
