import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { runShell, type ShellRunOptions } from "../../src/tools/shell.js";
import { killAllShells, liveShellCount } from "../../src/tools/shell-processes.js";
import { MAX_SPILL_BYTES } from "../../src/tools/shell-spill.js";
import { announceWhenRunning, livingProcesses, waitForText } from "./process-helpers.js";

const root = mkdtempSync(join(tmpdir(), "atomic-shell-test-"));
let spillDir: string;
let testIndex = 0;

beforeEach(() => {
	testIndex++;
	spillDir = join(root, `spill-${testIndex}`);
});
afterEach(() => {
	// A failed test must not leave its processes behind.
	killAllShells();
});
afterAll(() => {
	rmSync(root, { recursive: true, force: true });
});

function run(command: string, options: Partial<ShellRunOptions> = {}) {
	return runShell({ command, cwd: root, spillDir, ...options });
}

/** Every number from `from` to `to`, one per line, as `seq` prints them. */
function numberLines(from: number, to: number): string {
	const lines: number[] = [];
	for (let value = from; value <= to; value++) lines.push(value);
	return `${lines.join("\n")}\n`;
}

describe("runShell output", () => {
	it("interleaves stdout and stderr in arrival order and reports each channel's deltas", async () => {
		const deltas: { channel: string; text: string }[] = [];
		const result = await run("printf out; sleep 0.1; printf err >&2", {
			onData: (channel, text) => void deltas.push({ channel, text }),
		});
		expect(result.output).toBe("outerr");
		expect(deltas).toEqual([
			{ channel: "stdout", text: "out" },
			{ channel: "stderr", text: "err" },
		]);
		expect(result).toMatchObject({ exitCode: 0, cancelled: false, timedOut: false, truncated: false });
		expect(result.fullOutputPath).toBeUndefined();
		expect(result.totalLines).toBe(1);
		expect(result.totalBytes).toBe(6);
	});

	it("concatenates each channel's deltas to that channel's output", async () => {
		const text = { stdout: "", stderr: "" };
		const result = await run("for i in 1 2 3; do echo o$i; echo e$i >&2; sleep 0.02; done", {
			onData: (channel, delta) => {
				text[channel] += delta;
			},
		});
		expect(text).toEqual({ stdout: "o1\no2\no3\n", stderr: "e1\ne2\ne3\n" });
		// The output holds both channels in arrival order; which of two lines written to different
		// pipes at once arrives first is up to the scheduler, so only each channel's order is fixed.
		const lines = result.output.split("\n");
		expect(lines.filter((line) => line.startsWith("o"))).toEqual(["o1", "o2", "o3"]);
		expect(lines.filter((line) => line.startsWith("e"))).toEqual(["e1", "e2", "e3"]);
		expect(result.output.length).toBe("o1\ne1\no2\ne2\no3\ne3\n".length);
	});

	it("reports the exit code", async () => {
		expect((await run("true")).exitCode).toBe(0);
		const failed = await run("echo bye; exit 3");
		expect(failed).toMatchObject({ output: "bye\n", exitCode: 3, cancelled: false, timedOut: false });
		expect(failed.signal).toBeUndefined();
	});

	it("decodes a UTF-8 character split across chunks whole", async () => {
		const deltas: string[] = [];
		const result = await run("printf '\\xe2'; sleep 0.1; printf '\\x86\\x92'", {
			onData: (_channel, text) => void deltas.push(text),
		});
		expect(result.output).toBe("→");
		expect(deltas).toEqual(["→"]);
	});

	it("strips escape sequences and carriage returns and replaces control characters", async () => {
		const result = await run(
			"printf '\\033[1;31mred\\033[0m \\033]0;title\\007plain\\r\\nbell\\007 nul\\000 tab\\t\\n'",
		);
		expect(result.output).toBe("red plain\nbell\uFFFD nul\uFFFD tab\t\n");
	});

	it("strips an escape sequence split across chunks", async () => {
		const deltas: string[] = [];
		const result = await run("printf 'x\\033['; sleep 0.1; printf '32my\\n'", {
			onData: (_channel, text) => void deltas.push(text),
		});
		expect(result.output).toBe("xy\n");
		expect(deltas).toEqual(["x", "y\n"]);
	});

	it("passes the environment", async () => {
		const result = await run('printf %s "$ATOMIC_TEST_VALUE"', {
			env: { PATH: process.env.PATH, ATOMIC_TEST_VALUE: "from env" },
		});
		expect(result.output).toBe("from env");
	});
});

describe("runShell truncation and the full-output file", () => {
	it("keeps the last 2000 lines of a large output and saves all of it", async () => {
		const result = await run("seq 1 200000");
		const full = numberLines(1, 200000);
		expect(result.output).toBe(numberLines(198001, 200000).slice(0, -1));
		expect(result.output.endsWith("200000")).toBe(true);
		expect(result.output.split("\n")).toHaveLength(2000);
		expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(51200);
		expect(result).toMatchObject({ truncated: true, exitCode: 0, totalLines: 200000, totalBytes: full.length });
		expect(result.truncation).toMatchObject({ truncatedBy: "lines", outputLines: 2000 });

		const path = result.fullOutputPath ?? "";
		expect(path).toMatch(new RegExp(`^${spillDir}/atomic-bash-\\d+-[0-9a-f]{16}\\.log$`));
		expect(readFileSync(path, "utf8")).toBe(full);
		expect(statSync(path).mode & 0o777).toBe(0o600);
		expect(statSync(spillDir).mode & 0o777).toBe(0o700);
	});

	it("saves a second output next to the first, and none where the directory is a file", async () => {
		const first = await run("seq 1 20000");
		const second = await run("seq 2 20001");
		expect(first.fullOutputPath).not.toBe(second.fullOutputPath);
		expect(readFileSync(second.fullOutputPath ?? "", "utf8")).toBe(numberLines(2, 20001));
		const file = join(root, `not-a-directory-${testIndex}`);
		writeFileSync(file, "");
		const warnings: string[] = [];
		const onWarning = (warning: Error) => warnings.push(warning.message);
		process.on("warning", onWarning);
		try {
			const refused = await run("seq 1 20000", { spillDir: file });
			expect(refused).toMatchObject({ truncated: true, exitCode: 0 });
			expect(refused.fullOutputPath).toBeUndefined();
			await new Promise((resolve) => setImmediate(resolve));
		} finally {
			process.off("warning", onWarning);
		}
		expect(warnings.some((warning) => warning.includes("not a directory"))).toBe(true);
	});

	it("counts every line of a long output full of escapes, CRs and multi-byte characters", async () => {
		// 40000 lines of ~40 bytes, with sequences and characters that the reads cut in two.
		const result = await run(
			"for i in $(seq 1 40000); do printf '\\033[1;31m%d\\033[0m \\r\\xe2\\x82\\xac \\xf0\\x9f\\x98\\x80 tail\\n' $i; done",
		);
		expect(result).toMatchObject({ truncated: true, exitCode: 0, totalLines: 40000 });
		const lines = result.output.split("\n");
		expect(lines).toHaveLength(result.truncation.outputLines);
		expect(lines.at(-1)).toBe("40000 € 😀 tail");
		expect(readFileSync(result.fullOutputPath ?? "", "utf8").split("\n")).toHaveLength(40001);
	});

	it("saves the output when only the line limit truncates it", async () => {
		const result = await run("seq 1 3000");
		expect(result).toMatchObject({ truncated: true, totalLines: 3000, totalBytes: numberLines(1, 3000).length });
		expect(result.output).toBe(numberLines(1001, 3000).slice(0, -1));
		expect(readFileSync(result.fullOutputPath ?? "", "utf8")).toBe(numberLines(1, 3000));
	});

	it("creates no file when nothing is truncated", async () => {
		const result = await run("seq 1 2000");
		expect(result.truncated).toBe(false);
		expect(result.output).toBe(numberLines(1, 2000));
		expect(result.fullOutputPath).toBeUndefined();
		expect(() => readdirSync(spillDir)).toThrow(/ENOENT/);
	});

	it("honours custom limits", async () => {
		const result = await run("seq 1 10", { maxLines: 3, maxBytes: 1000 });
		expect(result.output).toBe("8\n9\n10");
		expect(result.truncation).toMatchObject({ truncatedBy: "lines", totalLines: 10, outputLines: 3 });
	});

	it("handles an output far larger than the tail in bounded memory and saves all of it", async () => {
		const size = 50_000_000;
		const result = await run(`head -c ${size} /dev/zero | tr '\\0' 'a'`);
		expect(result).toMatchObject({ truncated: true, exitCode: 0, totalBytes: size, totalLines: 1 });
		expect(result.output).toBe("a".repeat(51200));
		expect(result.truncation.lastLinePartial).toBe(true);
		expect(statSync(result.fullOutputPath ?? "").size).toBe(size);
	});

	it("defaults the file's cap to 64 MiB", () => {
		expect(MAX_SPILL_BYTES).toBe(64 * 1024 * 1024);
	});

	it("cuts the file at its cap on a character boundary, then adds the marker", async () => {
		const result = await run("for i in $(seq 1 1000); do printf '→'; done", { maxBytes: 100, maxSpillBytes: 1000 });
		expect(result.totalBytes).toBe(3000);
		expect(result.output).toBe("→".repeat(33));
		// 333 arrows fill 999 bytes; the 334th would cross the cap.
		const expected = `${"→".repeat(333)}\n[Output exceeded 1000B; the rest was not saved]\n`;
		expect(readFileSync(result.fullOutputPath ?? "", "utf8")).toBe(expected);
	});
});

describe("runShell stopping", () => {
	it("kills the whole process group on abort and resolves with the partial output", async () => {
		const controller = new AbortController();
		const ready = waitForText();
		const running = run(`sleep 30.101 & sleep 30.101 & ${announceWhenRunning("30.101")}; wait`, {
			signal: controller.signal,
			onData: ready.onData,
		});
		await ready.until("started\n");
		expect(livingProcesses(["sleep", "30.101"])).toHaveLength(2);
		expect(liveShellCount()).toBe(1);
		controller.abort();
		const result = await running;
		expect(result).toMatchObject({ output: "started\n", cancelled: true, timedOut: false, truncated: false });
		expect(result.exitCode).toBeUndefined();
		expect(livingProcesses(["sleep", "30.101"])).toEqual([]);
		expect(liveShellCount()).toBe(0);
	});

	it("sends SIGKILL to processes that ignore SIGTERM", async () => {
		const controller = new AbortController();
		const ready = waitForText();
		const running = run(`trap '' TERM; sleep 30.102 & ${announceWhenRunning("30.102")}; wait`, {
			signal: controller.signal,
			onData: ready.onData,
		});
		await ready.until("started\n");
		controller.abort();
		const result = await running;
		expect(result.cancelled).toBe(true);
		expect(result.signal).toBe("SIGKILL");
		expect(livingProcesses(["sleep", "30.102"])).toEqual([]);
	});

	it("times out and kills the group", async () => {
		const result = await run("echo before; sleep 30.103", { timeoutMs: 200 });
		expect(result).toMatchObject({ output: "before\n", cancelled: false, timedOut: true });
		expect(result.exitCode).toBeUndefined();
		expect(livingProcesses(["sleep", "30.103"])).toEqual([]);
	});

	it("does not start a command whose signal is already aborted", async () => {
		const result = await run("touch started", { signal: AbortSignal.abort() });
		expect(result).toMatchObject({ output: "", cancelled: true, timedOut: false, totalLines: 0, totalBytes: 0 });
		expect(readdirSync(root)).not.toContain("started");
	});

	it("killAllShells kills every running command", async () => {
		const ready = waitForText();
		const running = run("echo started; sleep 30.104", { onData: ready.onData });
		await ready.until("started\n");
		expect(liveShellCount()).toBe(1);
		killAllShells();
		const result = await running;
		expect(result).toMatchObject({ output: "started\n", cancelled: false, timedOut: false, signal: "SIGKILL" });
		expect(result.exitCode).toBeUndefined();
		expect(liveShellCount()).toBe(0);
		expect(livingProcesses(["sleep", "30.104"])).toEqual([]);
	});
});

describe("runShell failures", () => {
	it("rejects a missing working directory, a file as one, and one missing when the signal is already aborted", async () => {
		const cwd = join(root, "missing");
		await expect(runShell({ command: "true", cwd })).rejects.toThrow(`Working directory does not exist: ${cwd}`);
		const file = join(root, "a-file");
		writeFileSync(file, "");
		await expect(runShell({ command: "true", cwd: file })).rejects.toThrow(`Working directory does not exist: ${file}`);
		const aborted = AbortSignal.abort();
		await expect(runShell({ command: "true", cwd, signal: aborted })).rejects.toThrow(
			`Working directory does not exist: ${cwd}`,
		);
		expect(liveShellCount()).toBe(0);
	});

	it("rejects when the shell cannot be started", async () => {
		await expect(run("true", { shellPath: "/nonexistent/shell" })).rejects.toThrow(
			"Could not start the shell /nonexistent/shell: spawn /nonexistent/shell ENOENT",
		);
		expect(liveShellCount()).toBe(0);
	});
});
