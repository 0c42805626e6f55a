import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import {
	descendantsOf,
	findProcesses,
	findProcessesAsync,
	newShellTag,
	signalProcesses,
	taggedEnvironment,
} from "../../src/tools/process-tree.js";
import { livingProcesses, waitForText } from "./process-helpers.js";

const started: number[] = [];
afterEach(() => {
	for (const pid of started.splice(0)) {
		for (const sleeper of [...livingProcesses(["sleep", "30.501"]), ...livingProcesses(["sleep", "30.502"])]) {
			signalProcesses([sleeper], "SIGKILL");
		}
		signalProcesses([pid], "SIGKILL");
	}
});

/** A tagged shell with a setsid child and a plain child, both sleeping; resolves once both run. */
async function taggedShell(tag: string): Promise<{ pid: number; exited: Promise<unknown> }> {
	const ready = waitForText();
	const command = `setsid sleep 30.501 & sleep 30.502 & for pid in $(jobs -p); do until { read -r -d '' a0 && read -r -d '' a1; } < /proc/$pid/cmdline && [ "$a0" = sleep ]; do :; done; done; echo started; wait`;
	const shell = spawn("bash", ["-c", command], {
		env: taggedEnvironment(process.env, tag),
		stdio: ["ignore", "pipe", "ignore"],
	});
	shell.stdout.on("data", (chunk: Buffer) => ready.onData("stdout", chunk.toString()));
	const exited = new Promise((resolve) => shell.once("exit", resolve));
	await ready.until("started\n");
	if (shell.pid === undefined) throw new Error("bash did not start");
	started.push(shell.pid);
	return { pid: shell.pid, exited };
}

describe("finding a command's processes", () => {
	it("walks the shell's children, and finds by tag what left the tree", async () => {
		const tag = newShellTag();
		const { pid: shell, exited } = await taggedShell(tag);
		const [detached] = livingProcesses(["sleep", "30.501"]);
		const [plain] = livingProcesses(["sleep", "30.502"]);
		expect(descendantsOf([shell]).sort()).toEqual([shell, detached, plain].sort());
		expect(findProcesses(new Set([tag]), []).pids.sort()).toEqual([shell, detached, plain].sort());

		// The shell dies: its children go to init, the parent-pid tree no longer leads to them.
		signalProcesses([shell], "SIGKILL");
		await exited;
		const search = await findProcessesAsync(new Set([tag, "no-such-tag"]), []);
		expect(search.pids).toEqual(expect.arrayContaining([detached, plain]));
		expect([...(search.liveTags ?? [])]).toEqual([tag]);
	});

	it("adds its tag to one inherited from an enclosing agent's shell", () => {
		const outer = newShellTag();
		const inner = newShellTag();
		expect(taggedEnvironment(taggedEnvironment({ PATH: "/bin" }, outer), inner)).toEqual({
			PATH: "/bin",
			ATOMIC_SHELL_TAG: `${outer} ${inner}`,
		});
	});
});
