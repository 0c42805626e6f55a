import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { AgentToolResult } from "../../src/agent/types.js";
import { createBashTool } from "../../src/tools/bash.js";
import { killAllShells } from "../../src/tools/shell-processes.js";
import { startSession } from "../runtime/helpers.js";
import { descendants } from "./process-helpers.js";

// A command runs in a shell of its own, `bash -c <command>`, started when the command is: what it
// sees is what `bash -c` gives, and nothing waits ahead of time.

const root = mkdtempSync(join(tmpdir(), "atomic-bash-c-"));
afterEach(() => killAllShells());
afterAll(() => rmSync(root, { recursive: true, force: true }));

function textOf(result: AgentToolResult<unknown>): string {
	return result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

async function run(tool: ReturnType<typeof createBashTool>, command: string): Promise<string> {
	try {
		return textOf(await tool.execute("call", { command }, new AbortController().signal, () => undefined));
	} catch (error) {
		return error instanceof Error ? error.message : String(error);
	}
}

/** A second in which no command runs: a shell started after the last command would count it. */
const aSecondPasses = () => new Promise((resolve) => setTimeout(resolve, 1100));

/** Time since boot in clock ticks (USER_HZ, 100 on Linux), as /proc/<pid>/stat counts a start. */
function systemUptimeTicks(): number {
	const seconds = Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]);
	return Math.floor(seconds * 100);
}

/** This process's descendants that are bash (or sh), from /proc. */
function shellChildren(): number[] {
	return descendants(process.pid).filter((pid) => {
		try {
			return /^(bash|sh)$/.test(readFileSync(`/proc/${pid}/comm`, "utf8").trim());
		} catch (error) {
			// It ended between the listing and the read.
			if (error instanceof Error && "code" in error && (error.code === "ENOENT" || error.code === "ESRCH"))
				return false;
			throw error;
		}
	});
}

describe.skipIf(process.platform !== "linux")("a command's shell is bash -c", () => {
	const tool = createBashTool({ cwd: root, spillDir: join(root, "spill") });

	it("a command killed by a signal is reported as killed by that signal", async () => {
		await run(tool, "true");
		await aSecondPasses();
		// bash -c execs its last command in place of itself: the signal ends the shell.
		expect(await run(tool, "sh -c 'kill -9 $$'")).toContain("Command was killed by SIGKILL");
	});

	it("$BASH_EXECUTION_STRING is the command, and its shell starts when the command is asked for", async () => {
		await run(tool, "true");
		await aSecondPasses();
		const command = 'echo "[$BASH_EXECUTION_STRING]"; cut -d" " -f22 /proc/$$/stat';
		const asked = systemUptimeTicks();
		const [echoed, started] = (await run(tool, command)).trim().split("\n");
		expect(echoed).toBe(`[${command}]`);
		// The shell's start, in clock ticks since boot, is not before the request (one tick of rounding).
		expect(Number(started)).toBeGreaterThanOrEqual(asked - 1);
	});

	it("two working directories do not share or replace a shell: each command runs in its own", async () => {
		const a = join(root, "a");
		const b = join(root, "b");
		mkdirSync(a, { recursive: true });
		mkdirSync(b, { recursive: true });
		const inA = createBashTool({ cwd: a });
		const inB = createBashTool({ cwd: b });
		const seen = await Promise.all([run(inA, "pwd"), run(inB, "pwd"), run(inA, "pwd"), run(inB, "pwd")]);
		expect(seen.map((text) => text.trim())).toEqual([a, b, a, b]);
	});

	it("no shell waits for a command: an SDK session keeps no bash after its commands", async () => {
		const { session } = startSession();
		const result = await session.executeBash("echo ran");
		expect(result.output).toContain("ran");
		await aSecondPasses();
		expect(shellChildren()).toEqual([]);
	});
});
