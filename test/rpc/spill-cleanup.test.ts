import { spawnSync } from "node:child_process";
import { existsSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectExitOnEof, expectResponsive } from "../support/responsive.js";
import { startAgent, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

/** Long enough to be cut, so that the whole output is saved to a file. */
const LONG = "seq 1 30000";

async function savedOutput(agent: Awaited<ReturnType<typeof startAgent>>["agent"]): Promise<string> {
	const data = (await agent.ok({ type: "bash", command: LONG })) as { fullOutputPath?: string };
	if (!data.fullOutputPath) throw new Error("the output was not saved");
	expect(existsSync(data.fullOutputPath)).toBe(true);
	return data.fullOutputPath;
}

/** A pid no process has now: one that just exited. */
function deadPid(): number {
	const child = spawnSync("sh", ["-c", "echo $$"], { encoding: "utf8" });
	return Number(child.stdout.trim());
}

async function until(condition: () => boolean, what: string): Promise<void> {
	const deadline = Date.now() + 10_000;
	while (!condition()) {
		if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}

describe("saved command outputs", () => {
	it("are removed on exit when no session refers to them", async () => {
		const { agent } = await startAgent(harness.server);
		const path = await savedOutput(agent);
		await expectResponsive(agent);
		await expectExitOnEof(agent);
		expect(existsSync(path)).toBe(false);
	});

	it("outlive the process, read-only, when the session file refers to them", async () => {
		const { agent } = await startAgent(harness.server, { sessions: true });
		const path = await savedOutput(agent);
		await expectResponsive(agent);
		await expectExitOnEof(agent);
		expect(existsSync(path)).toBe(true);
		expect(statSync(path).mode & 0o777).toBe(0o400);
	});

	it("left by ended processes are cleaned up when the next process saves one", async () => {
		const pid = deadPid();
		const old = new Date(Date.now() - 8 * 24 * 3600 * 1000);
		const files: Record<string, { mode: number; old?: boolean; stays: boolean }> = {
			[`atomic-bash-${pid}-00000000000000a1.log`]: { mode: 0o600, stays: false },
			[`atomic-bash-${pid}-00000000000000a2.log`]: { mode: 0o400, stays: true },
			[`atomic-bash-${pid}-00000000000000a3.log`]: { mode: 0o400, old: true, stays: false },
			[`atomic-bash-${process.pid}-00000000000000a4.log`]: { mode: 0o600, stays: true },
			"atomic-bash-00000000000000a5.log": { mode: 0o600, old: true, stays: false },
			"atomic-bash-00000000000000a6.log": { mode: 0o600, stays: true },
			"unrelated.log": { mode: 0o600, old: true, stays: true },
		};
		const { agent, dirs } = await startAgent(harness.server);
		const tmp = join(dirs.root, "tmp");
		for (const [name, file] of Object.entries(files)) {
			writeFileSync(join(tmp, name), "old output\n", { mode: file.mode });
			if (file.old) utimesSync(join(tmp, name), old, old);
		}
		await savedOutput(agent);
		const gone = Object.keys(files).filter((name) => !files[name]?.stays);
		await until(() => gone.every((name) => !existsSync(join(tmp, name))), "the stale files are removed");
		await expectResponsive(agent);
		const kept = Object.keys(files).filter((name) => files[name]?.stays);
		expect(kept.filter((name) => existsSync(join(tmp, name)))).toEqual(kept);
		await expectResponsive(agent);
		await expectExitOnEof(agent);
	});
});
