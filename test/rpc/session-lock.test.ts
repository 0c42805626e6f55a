/**
 * One Atomic process per session file: a second opener gets a clear error, a lock left by a
 * killed process does not block, and the lock goes when the session is closed, switched or the
 * process exits.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import { expectExitOnEof, expectResponsive } from "../support/responsive.js";
import { RpcAgent } from "../support/rpc-process.js";
import { type StartedAgent, startAgent, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

const sessionFileOf = async (agent: RpcAgent) =>
	((await agent.ok({ type: "get_state" })) as { sessionFile: string }).sessionFile;
const lockOf = (file: string) => `${file}.lock`;
const lockPid = (file: string) => (JSON.parse(readFileSync(lockOf(file), "utf8")) as { pid: number }).pid;

const beside: RpcAgent[] = [];

afterEach(async () => {
	for (const agent of beside.splice(0)) {
		agent.kill();
		await agent.exited;
	}
});

/** Another agent on the first one's tree: same agent dir, session dir and working directory. */
function startBeside(first: StartedAgent, args: string[]): RpcAgent {
	const agent = new RpcAgent({
		args: ["--session-dir", first.sessionDir, ...args],
		agentDir: first.dirs.agentDir,
		home: first.dirs.home,
		cwd: first.dirs.work,
		env: { TMPDIR: join(first.dirs.root, "tmp") },
	});
	beside.push(agent);
	return agent;
}

/** Starts an agent beside `first` that must refuse to start; returns its stderr. */
async function refusedStart(first: StartedAgent, args: string[]): Promise<string> {
	const agent = startBeside(first, args);
	expect(await agent.exited).toEqual({ code: 1, signal: null });
	return agent.stderr;
}

describe("the lock on a session file", () => {
	it("refuses a second process on the same --session file with a clear error", async () => {
		const first = await startAgent(harness.server, { sessions: true, args: ["--session", "./shared.jsonl"] });
		const file = join(first.dirs.work, "shared.jsonl");
		harness.server.enqueue(textReply("one"));
		await first.agent.prompt("first");
		expect(lockPid(file)).toBe(first.agent.child.pid);

		const stderr = await refusedStart(first, ["--session", file]);
		expect(stderr).toContain(
			`Error: Session file is in use by another Atomic process (pid ${first.agent.child.pid}): ${file}.`,
		);
		await expectResponsive(first.agent);
		// Released at exit: the next process opens the file.
		await expectExitOnEof(first.agent);
		expect(existsSync(lockOf(file))).toBe(false);
		const third = startBeside(first, ["--session", file]);
		await third.waitForEvent("ready");
		expect(await sessionFileOf(third)).toBe(file);
		expect(lockPid(file)).toBe(third.child.pid);
	});

	it("does not let a lock left by kill -9 block the next process", async () => {
		const first = await startAgent(harness.server, { sessions: true });
		harness.server.enqueue(textReply("one"));
		await first.agent.prompt("first");
		const file = await sessionFileOf(first.agent);
		first.agent.kill("SIGKILL");
		await first.agent.exited;
		expect(existsSync(lockOf(file))).toBe(true);
		const agent = startBeside(first, ["--session", file]);
		await agent.waitForEvent("ready");
		expect(lockPid(file)).toBe(agent.child.pid);
		harness.server.enqueue(textReply("two"));
		await agent.prompt("second");
		await expectResponsive(agent);
		await expectExitOnEof(agent);
	});

	it("covers -c, switch_session and the files that fork, clone and new_session create", async () => {
		const first = await startAgent(harness.server, { sessions: true });
		harness.server.enqueue(textReply("one"));
		await first.agent.prompt("first");
		const original = await sessionFileOf(first.agent);

		// -c picks the most recent session of the cwd: the one the first process holds.
		expect(await refusedStart(first, ["-c"])).toContain(`Session file is in use by another Atomic process`);

		const other = { agent: startBeside(first, []) };
		await other.agent.waitForEvent("ready");
		const refused = await other.agent.request({ type: "switch_session", sessionPath: original });
		expect(refused).toMatchObject({ success: false });
		expect(String(refused.error)).toContain(
			`Session file is in use by another Atomic process (pid ${first.agent.child.pid})`,
		);
		await expectResponsive(other.agent);

		// A clone is locked by its creator; the original is released by the switch to it.
		await first.agent.ok({ type: "clone" });
		const clone = await sessionFileOf(first.agent);
		expect(lockPid(clone)).toBe(first.agent.child.pid);
		expect(existsSync(lockOf(original))).toBe(false);
		expect(await other.agent.request({ type: "switch_session", sessionPath: clone })).toMatchObject({ success: false });
		expect(await other.agent.request({ type: "switch_session", sessionPath: original })).toMatchObject({
			success: true,
		});
		expect(lockPid(original)).toBe(other.agent.child.pid);

		// A fork of a held file is the forker's.
		const { messages } = (await other.agent.ok({ type: "get_fork_messages" })) as { messages: { entryId: string }[] };
		await other.agent.ok({ type: "fork", entryId: messages[0]?.entryId });
		const fork = await sessionFileOf(other.agent);
		expect(existsSync(lockOf(original))).toBe(false);
		harness.server.enqueue(textReply("forked reply"));
		await other.agent.prompt("in the fork");
		expect(lockPid(fork)).toBe(other.agent.child.pid);

		// new_session: the new file is locked from its first entry; the one left is released.
		await first.agent.ok({ type: "new_session" });
		expect(existsSync(lockOf(clone))).toBe(false);
		await first.agent.ok({ type: "set_session_name", name: "fresh" });
		const fresh = await sessionFileOf(first.agent);
		expect(lockPid(fresh)).toBe(first.agent.child.pid);
		expect(await other.agent.request({ type: "switch_session", sessionPath: fresh })).toMatchObject({ success: false });

		await expectExitOnEof(first.agent);
		await expectExitOnEof(other.agent);
		for (const file of [original, clone, fork, fresh]) expect(existsSync(lockOf(file))).toBe(false);
	});

	it("is released when the process is ended by SIGTERM", async () => {
		const { agent } = await startAgent(harness.server, { sessions: true });
		await agent.ok({ type: "set_session_name", name: "held" });
		const file = await sessionFileOf(agent);
		expect(lockPid(file)).toBe(agent.child.pid);
		agent.kill("SIGTERM");
		await agent.exited;
		expect(existsSync(lockOf(file))).toBe(false);
	});
});
