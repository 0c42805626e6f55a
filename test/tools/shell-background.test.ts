import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { runShell, type ShellRunOptions } from "../../src/tools/shell.js";
import { killAllShells, liveShellCount } from "../../src/tools/shell-processes.js";
import { announceWhenRunning, livingProcesses, waitForPath, waitForText, waitUntilGone } from "./process-helpers.js";

const root = mkdtempSync(join(tmpdir(), "atomic-shell-background-"));
afterEach(() => {
	// A failed test must not leave its processes behind.
	killAllShells();
});
afterAll(() => {
	rmSync(root, { recursive: true, force: true });
});

function run(command: string, options: Partial<ShellRunOptions> = {}) {
	return runShell({ command, cwd: root, spillDir: join(root, "spill"), ...options });
}

describe("background processes of a command", () => {
	it("do not hold up the command: it returns when its shell exits, and they live on", async () => {
		const result = await run(`sleep 30.201 & ${announceWhenRunning("30.201")}`);
		expect(result).toMatchObject({ output: "started\n", exitCode: 0, cancelled: false, timedOut: false });
		expect(liveShellCount()).toBe(0);
		expect(livingProcesses(["sleep", "30.201"])).toHaveLength(1);
		killAllShells();
		await waitUntilGone(["sleep", "30.201"]);
	});

	it("that left the session (setsid) do not hold it up either, and are ended when this process exits", async () => {
		const result = await run(`setsid sleep 30.202 & ${announceWhenRunning("30.202")}`);
		expect(result).toMatchObject({ output: "started\n", exitCode: 0 });
		expect(livingProcesses(["sleep", "30.202"])).toHaveLength(1);
		// What the exit hook runs.
		killAllShells();
		await waitUntilGone(["sleep", "30.202"]);
	});

	it("keep writing after the command returned without being killed by a closed pipe", async () => {
		const marker = join(root, "wrote-late");
		const result = await run(
			`(sleep 0.3; echo late; echo late >&2; touch '${marker}'; exec sleep 30.203) & echo started`,
		);
		expect(result.output).toBe("started\n");
		await waitForPath(marker);
		await new Promise<void>((resolve) => {
			const check = () => (livingProcesses(["sleep", "30.203"]).length > 0 ? resolve() : setTimeout(check, 20));
			check();
		});
		expect(livingProcesses(["sleep", "30.203"])).toHaveLength(1);
	});

	it("are ended when the command's signal aborts after it returned", async () => {
		const controller = new AbortController();
		const result = await run(`sleep 30.204 & ${announceWhenRunning("30.204")}`, { signal: controller.signal });
		expect(result.exitCode).toBe(0);
		expect(livingProcesses(["sleep", "30.204"])).toHaveLength(1);
		controller.abort();
		await waitUntilGone(["sleep", "30.204"]);
	});
});

describe("abort reaches every descendant", () => {
	it("including those that called setsid, and answers without waiting for them", async () => {
		const controller = new AbortController();
		const ready = waitForText();
		const running = run(`setsid sleep 30.211 & ${announceWhenRunning("30.211")}; sleep 30.212`, {
			signal: controller.signal,
			onData: ready.onData,
		});
		await ready.until("started\n");
		controller.abort();
		const result = await running;
		expect(result).toMatchObject({ output: "started\n", cancelled: true });
		await waitUntilGone(["sleep", "30.211"]);
		await waitUntilGone(["sleep", "30.212"]);
	});

	it("including a setsid child that cleared its environment, through the parent-pid tree", async () => {
		const controller = new AbortController();
		const ready = waitForText();
		const running = run(`setsid env -i sleep 30.213 & ${announceWhenRunning("30.213")}; wait`, {
			signal: controller.signal,
			onData: ready.onData,
		});
		await ready.until("started\n");
		controller.abort();
		expect((await running).cancelled).toBe(true);
		await waitUntilGone(["sleep", "30.213"]);
	});

	it("on timeout too, background and setsid processes included", async () => {
		const ready = waitForText();
		const running = run(`setsid sleep 30.214 & sleep 30.214 & ${announceWhenRunning("30.214")}; wait`, {
			timeoutMs: 1500,
			onData: ready.onData,
		});
		await ready.until("started\n");
		expect(livingProcesses(["sleep", "30.214"])).toHaveLength(2);
		expect((await running).timedOut).toBe(true);
		await waitUntilGone(["sleep", "30.214"]);
	});
});

describe("timeouts", () => {
	it("beyond the longest timer are clamped instead of firing at once", async () => {
		const result = await run("sleep 0.3; echo finished", { timeoutMs: 30 * 24 * 3600 * 1000 });
		expect(result).toMatchObject({ output: "finished\n", exitCode: 0, timedOut: false });
	});
});
