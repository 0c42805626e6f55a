import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { runShell, type ShellRunOptions } from "../../src/tools/shell.js";
import { killAllShells } from "../../src/tools/shell-processes.js";
import { livingProcesses } from "./process-helpers.js";

const root = mkdtempSync(join(tmpdir(), "atomic-shell-backpressure-"));
afterEach(() => {
	killAllShells();
});
afterAll(() => {
	rmSync(root, { recursive: true, force: true });
});

function run(command: string, options: Partial<ShellRunOptions> = {}) {
	return runShell({ command, cwd: root, spillDir: join(root, "spill"), ...options });
}

/** Whether the process is blocked in write(2) on its stdout (the pipe is full: nobody reads it). */
function blockedWritingStdout(pid: number): boolean {
	try {
		// The syscall number (1: write on x86-64, 64 on arm64) and its first argument (the fd).
		const [call, fd] = readFileSync(`/proc/${pid}/syscall`, "utf8").split(" ");
		if (call !== undefined && fd !== undefined) return (call === "1" || call === "64") && fd === "0x1";
	} catch (error) {
		if (!(error instanceof Error && "code" in error && error.code === "EACCES")) throw error;
	}
	return readFileSync(`/proc/${pid}/wchan`, "utf8").includes("pipe_w");
}

/**
 * Resolves once `ready()` holds and the process with exactly `args` is blocked writing its stdout,
 * both on two checks in a row (a pipe being read can be full for a moment).
 */
async function untilBlockedWriting(args: string[], ready: () => boolean, timeoutMs = 8000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	let seen = 0;
	for (;;) {
		const [pid] = livingProcesses(args);
		seen = ready() && pid !== undefined && blockedWritingStdout(pid) ? seen + 1 : 0;
		if (seen === 2) return;
		if (Date.now() > deadline) throw new Error(`${args.join(" ")} never blocked on its stdout`);
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}

/** A promise and the function that settles it. */
function gate(): { promise: Promise<void>; open(): void } {
	let open: () => void = () => undefined;
	const promise = new Promise<void>((resolve) => {
		open = resolve;
	});
	return { promise, open };
}

describe("runShell with an onData that waits", () => {
	it("reads no further output until the promise settles, then loses nothing", async () => {
		const size = 4_194_301;
		const first = gate();
		const deltas: string[] = [];
		const running = run(`yes | head -c ${size}`, {
			onData: (_channel, delta) => {
				deltas.push(delta);
				return deltas.length === 1 ? first.promise : undefined;
			},
		});
		// `head` stops on a full pipe: the first delta is still pending, so nothing else was read.
		await untilBlockedWriting(["head", "-c", String(size)], () => deltas.length > 0);
		expect(deltas).toHaveLength(1);
		first.open();
		const result = await running;
		expect(result.exitCode).toBe(0);
		expect(result.totalBytes).toBe(size);
		const text = deltas.join("");
		expect(text.length).toBe(size);
		expect(/^(y\n)*y?$/.test(text)).toBe(true);
	});

	it("ends at once on abort while output waits", async () => {
		const controller = new AbortController();
		const never = new Promise<void>(() => undefined);
		let calls = 0;
		const running = run("yes | head -c 4194302", {
			signal: controller.signal,
			onData: () => {
				calls++;
				return never;
			},
		});
		await untilBlockedWriting(["head", "-c", "4194302"], () => calls > 0);
		expect(calls).toBe(1);
		controller.abort();
		const result = await running;
		expect(result.cancelled).toBe(true);
		expect(livingProcesses(["head", "-c", "4194302"])).toEqual([]);
	});
});
