import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSession, openSession } from "../../src/session/open.js";
import { processStartTime } from "../../src/session/process-identity.js";
import { lockPathFor, SessionFileLockedError } from "../../src/session/session-lock.js";
import { assistant, user, useTempDir } from "./helpers.js";

const temp = useTempDir();
const children: ChildProcess[] = [];

afterEach(() => {
	for (const child of children.splice(0)) child.kill("SIGKILL");
});

/** A live process that is not this one (and its start time). */
async function liveProcess(): Promise<{ pid: number; startTime: string | undefined; end(): Promise<void> }> {
	const child = spawn("sleep", ["60"], { stdio: "ignore" });
	children.push(child);
	await new Promise((resolve) => child.once("spawn", resolve));
	const pid = child.pid ?? 0;
	const end = async () => {
		const exited = new Promise((resolve) => child.once("exit", resolve));
		child.kill("SIGKILL");
		await exited;
	};
	return { pid, startTime: processStartTime(pid), end };
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
	const child = spawn("true", { stdio: "ignore" });
	await new Promise((resolve) => child.once("exit", resolve));
	return child.pid ?? 0;
}

function writeLock(sessionPath: string, holder: Record<string, unknown>): void {
	const lock = { hostname: hostname(), token: "feedface", acquiredAt: new Date().toISOString(), ...holder };
	writeFileSync(lockPathFor(sessionPath), JSON.stringify(lock));
}

function savedSessionFile(): string {
	const session = createSession({ cwd: temp.dir(), sessionDir: temp.dir() });
	session.appendMessage(user("hello"));
	session.appendMessage(assistant("hi"));
	session.close();
	return session.file ?? "";
}

function lockHolder(sessionPath: string): { pid: number; startTime?: string } {
	return JSON.parse(readFileSync(lockPathFor(sessionPath), "utf8"));
}

describe("the lock on a session file", () => {
	it("is taken when a file is opened, names this process, and goes with close", () => {
		const file = savedSessionFile();
		expect(existsSync(lockPathFor(file))).toBe(false);
		const session = openSession(file);
		expect(lockHolder(file)).toMatchObject({ pid: process.pid, startTime: processStartTime(process.pid) });
		session.close();
		expect(existsSync(lockPathFor(file))).toBe(false);
	});

	it("refuses a file another live process holds, with a clear error, and leaves its lock alone", async () => {
		const file = savedSessionFile();
		const other = await liveProcess();
		writeLock(file, { pid: other.pid, startTime: other.startTime });
		const before = readFileSync(lockPathFor(file), "utf8");
		expect(() => openSession(file)).toThrow(SessionFileLockedError);
		expect(() => openSession(file)).toThrow(
			`Session file is in use by another Atomic process (pid ${other.pid}): ${file}. Close that process or open another session (if no such process is running, delete ${lockPathFor(file)}).`,
		);
		expect(readFileSync(lockPathFor(file), "utf8")).toBe(before);
		// The failed open released this process's claim: once the holder is gone the file opens.
		await other.end();
		temp.track(openSession(file));
	});

	it("takes over a lock left by a process that is gone (kill -9)", async () => {
		const file = savedSessionFile();
		writeLock(file, { pid: await deadPid(), startTime: "1" });
		const session = temp.track(openSession(file));
		expect(lockHolder(file).pid).toBe(process.pid);
		session.appendMessage(user("mine now"));
	});

	it("takes over a lock whose pid now belongs to a later process", async () => {
		const file = savedSessionFile();
		const other = await liveProcess();
		writeLock(file, { pid: other.pid, startTime: `${Number(other.startTime ?? "0") + 12345}` });
		temp.track(openSession(file));
		expect(lockHolder(file).pid).toBe(process.pid);
	});

	it("waits out an unreadable lock only while it may still be being written", () => {
		const file = savedSessionFile();
		writeFileSync(lockPathFor(file), "");
		expect(() => openSession(file)).toThrow(SessionFileLockedError);
		const old = new Date(Date.now() - 60_000);
		utimesSync(lockPathFor(file), old, old);
		temp.track(openSession(file));
		expect(lockHolder(file).pid).toBe(process.pid);
	});

	it("never takes over the lock of another host, and says which host", () => {
		const file = savedSessionFile();
		// pid 1 always exists here; on another host its liveness would mean nothing anyway.
		writeLock(file, { pid: 1, hostname: "build-box-7" });
		expect(() => openSession(file)).toThrow(`(pid 1 on build-box-7)`);
	});

	it("for a new session, appears with its file and not before", () => {
		const session = temp.track(createSession({ cwd: temp.dir(), sessionDir: join(temp.dir(), "fresh") }));
		const file = session.file ?? "";
		expect(existsSync(lockPathFor(file))).toBe(false);
		session.appendMessage(user("first"));
		expect(lockHolder(file).pid).toBe(process.pid);
	});

	it("is taken for a missing path opened explicitly, so two openers cannot both create it", () => {
		const path = join(temp.dir(), "chosen.jsonl");
		const session = temp.track(openSession(path, { cwd: temp.dir() }));
		expect(lockHolder(path).pid).toBe(process.pid);
		expect(existsSync(path)).toBe(false);
		session.close();
		expect(existsSync(lockPathFor(path))).toBe(false);
	});

	// Root may create files anywhere: a read-only directory is only read-only for other users.
	it.skipIf(process.getuid?.() === 0)("does not keep a session in a read-only directory from being opened", () => {
		const file = savedSessionFile();
		chmodSync(temp.dir(), 0o500);
		try {
			const session = temp.track(openSession(file));
			expect(session.entries()).toHaveLength(2);
			expect(existsSync(lockPathFor(file))).toBe(false);
		} finally {
			chmodSync(temp.dir(), 0o700);
		}
	});

	it("is not removed by a closing session that no longer holds it", () => {
		const file = savedSessionFile();
		const session = openSession(file);
		writeLock(file, { pid: 1, token: "another-owner" });
		session.close();
		expect(lockHolder(file).pid).toBe(1);
	});
});
