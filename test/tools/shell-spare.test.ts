import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { childProcessModule } from "../../src/platform/lazy-builtins.js";
import { runShell, type ShellRunOptions } from "../../src/tools/shell.js";
import { killAllShells } from "../../src/tools/shell-processes.js";
import {
	BOOTSTRAP,
	dropSpare,
	prepareSpare,
	SPARE_DELAY_MS,
	SPARE_MAX_COMMAND_BYTES,
	spareReady,
} from "../../src/tools/shell-spare.js";
import { makeAgentDir, RpcAgent } from "../support/rpc-process.js";
import { livingProcesses } from "./process-helpers.js";

const root = mkdtempSync(join(tmpdir(), "atomic-shell-spare-"));
const SPARE_ARGV = ["/bin/bash", "-c", BOOTSTRAP, "/bin/bash"];

afterEach(() => {
	vi.restoreAllMocks();
	killAllShells();
});
afterAll(() => {
	rmSync(root, { recursive: true, force: true });
});

function run(command: string, options: Partial<ShellRunOptions> = {}) {
	return runShell({ command, cwd: root, spillDir: join(root, "spill"), ...options });
}

/** Resolves once a spare is ready for the next command (made SPARE_DELAY_MS after the last one started). */
async function spareMade(): Promise<void> {
	for (let waited = 0; !spareReady(); waited += 5) {
		if (waited > 5000) throw new Error("no spare shell was made");
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
}

/** Counts the shells started for a command from now on (spares are not counted). */
function countSpawns(): { count(): number } {
	const spy = vi.spyOn(childProcessModule(), "spawn");
	return { count: () => spy.mock.calls.filter(([, args]) => args?.[1] !== BOOTSTRAP).length };
}

/** The spares `parent` made that are alive. */
function sparesOf(parent: number | undefined): number[] {
	return livingProcesses(SPARE_ARGV).filter((pid) => {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === parent;
	});
}

async function until(condition: () => boolean, what: string): Promise<void> {
	for (let waited = 0; !condition(); waited += 10) {
		if (waited > 10_000) throw new Error(`timed out waiting until ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}

/** What a command can see of how it was started. */
const INTROSPECT =
	'printf "%s|%s|%s|%s\\n" "$0" "$#" "$-" "$PWD"; env | grep -v "^ATOMIC_SHELL_TAG=" | sort; ps -o pgid= -o sid= -p $$ | tr -s " "; echo $(( $$ == $(ps -o pgid= -p $$) )); exit 3';

describe("a spare shell", () => {
	it("runs the next command without a fork of this process, as a shell of its own would", async () => {
		// A locale bash cannot set: it warns as it starts, and that is the command's output either way.
		const env = { PATH: process.env.PATH, HOME: root, MARK: "spare", LC_ALL: "xx_YY.UTF-8" };
		dropSpare();
		const direct = await run(INTROSPECT, { env });
		await spareMade();
		const spawns = countSpawns();
		const spared = await run(INTROSPECT, { env });
		// The command went to the spare; the only spawn is the next spare's, after the delay.
		expect(spawns.count()).toBe(0);
		expect(spared.exitCode).toBe(3);
		// Sorted: stdout and stderr are two pipes, read in whichever order their data comes.
		const lines = (text: string) =>
			text
				.split("\n")
				.filter((line) => !/^ ?\d+ \d+$/.test(line.trim()))
				.sort();
		expect(lines(spared.output)).toEqual(lines(direct.output));
		expect(spared.output).toContain("setlocale");
		// Its own process group and session, led by the shell, as with a shell started for it.
		expect(spared.output).toContain("\n1\n");
		expect(spared.output).toContain("/bin/bash|0|hBc|");
	});

	it("is not used for other settings, a long command or one with a NUL byte", async () => {
		await run("true");
		await spareMade();
		const other = join(root, "other");
		mkdirSync(other, { recursive: true });
		const spawns = countSpawns();
		expect((await run("pwd", { cwd: other })).output).toBe(`${other}\n`);
		expect((await run("echo $MARK", { env: { ...process.env, MARK: "mine" } })).output).toBe("mine\n");
		expect(spawns.count()).toBe(2);
		await spareMade();
		const long = `echo ${"x".repeat(SPARE_MAX_COMMAND_BYTES)} | wc -c`;
		expect((await run(long)).output.trim()).toBe(String(SPARE_MAX_COMMAND_BYTES + 1));
		expect(spawns.count()).toBe(3);
		await spareMade();
		await expect(run("echo a\0b")).rejects.toThrow();
		expect(spareReady()).toBe(true);
	});

	it("runs each start-up file once: a shell whose environment names one gets none", async () => {
		const startup = join(root, "bash-env.sh");
		writeFileSync(startup, "echo sourced\n");
		const env = { PATH: process.env.PATH, BASH_ENV: startup };
		await run("true", { env });
		await new Promise((resolve) => setTimeout(resolve, SPARE_DELAY_MS * 5));
		expect(spareReady()).toBe(false);
		expect((await run("echo command", { env })).output).toBe("sourced\ncommand\n");
	});

	it("is stopped with the command it runs", async () => {
		await run("true");
		await spareMade();
		const controller = new AbortController();
		const started = performance.now();
		const running = run("echo started; sleep 30.303", {
			signal: controller.signal,
			onData: (_channel, text) => {
				if (text.includes("started")) controller.abort();
			},
		});
		const result = await running;
		expect(result.cancelled).toBe(true);
		expect(performance.now() - started).toBeLessThan(10_000);
		expect(livingProcesses(["sleep", "30.303"])).toEqual([]);
	});

	it("ends with the agent that made it: when it exits, and when it is killed", async () => {
		for (const end of ["exit", "kill"] as const) {
			const tree = makeAgentDir();
			try {
				const agent = new RpcAgent({
					args: ["--no-session"],
					agentDir: tree.agentDir,
					home: tree.home,
					cwd: tree.work,
				});
				await agent.ok({ type: "bash", command: "true" });
				await until(() => sparesOf(agent.child.pid).length === 1, "the agent made a spare");
				const [spare] = sparesOf(agent.child.pid);
				if (end === "exit") agent.closeStdin();
				else agent.kill("SIGKILL");
				await agent.exited;
				// Killed outright, the agent leaves its spare to read the end of its pipe and exit.
				await until(() => !livingProcesses(SPARE_ARGV).includes(spare ?? 0), `the spare left at ${end} ended`);
			} finally {
				tree.cleanup();
			}
		}
	});

	it("is made for the idle preload's shell settings", async () => {
		prepareSpare({ shell: "/bin/bash", cwd: root, env: process.env });
		expect(spareReady()).toBe(true);
		const spawns = countSpawns();
		expect((await run("echo ready")).output).toBe("ready\n");
		expect(spawns.count()).toBe(0);
	});
});
