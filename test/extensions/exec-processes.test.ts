import { tmpdir } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { execCommand } from "../../src/extensions/exec.js";
import { killAllShells } from "../../src/tools/shell-processes.js";
import { announceWhenRunning, livingProcesses, waitUntilGone } from "../tools/process-helpers.js";

afterEach(() => {
	// A failed test must not leave its processes behind.
	killAllShells();
});

describe("extension exec and the processes it starts", () => {
	it("returns when the program exits, though a setsid child holds its output", async () => {
		const result = await execCommand("bash", ["-c", `setsid sleep 30.401 & ${announceWhenRunning("30.401")}`], {
			cwd: tmpdir(),
		});
		expect(result).toEqual({ stdout: "started\n", stderr: "", code: 0, killed: false });
		expect(livingProcesses(["sleep", "30.401"])).toHaveLength(1);
		killAllShells();
		await waitUntilGone(["sleep", "30.401"]);
	});

	it("ends every process it started on abort, setsid ones included", async () => {
		const controller = new AbortController();
		const running = execCommand("bash", ["-c", `setsid sleep 30.402 & ${announceWhenRunning("30.402")}; wait`], {
			cwd: tmpdir(),
			signal: controller.signal,
		});
		await new Promise<void>((resolve) => {
			const check = () => (livingProcesses(["sleep", "30.402"]).length > 0 ? resolve() : setTimeout(check, 20));
			check();
		});
		controller.abort();
		expect(await running).toMatchObject({ killed: true });
		await waitUntilGone(["sleep", "30.402"]);
	});
});
