import { spawn } from "node:child_process";
import { expect, it } from "vitest";
import { useRpcHarness } from "../rpc/helpers.js";
import { CLI, childEnv } from "../support/rpc-process.js";
import { describeWithBubblewrap, makeTree } from "./support.js";

const harness = useRpcHarness();

function sandboxCheck(cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string }> {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [CLI, "--sandbox-check"], { cwd, env, stdio: ["ignore", "pipe", "inherit"] });
		let stdout = "";
		child.stdout.on("data", (chunk: Buffer) => {
			stdout += chunk.toString();
		});
		child.on("close", (code) => resolve({ code, stdout }));
	});
}

describeWithBubblewrap("atomic --sandbox-check", () => {
	it("shows the policy of the folder and that the sandbox holds; exit 1 when it cannot be made", async () => {
		const tree = makeTree(harness.server, { sandbox: { mode: "workspace-write", limits: { processes: 64 } } });
		const env = childEnv(tree.agentDir, tree.home);
		const works = await sandboxCheck(tree.work, env);
		expect(works.stdout).toContain("mechanism: bubblewrap: works");
		expect(works.stdout).toContain(`writable: ${tree.work}`);
		expect(works.stdout).toContain(`${tree.home}/.ssh`);
		expect(works.stdout).toContain("ok   write outside the writable roots: denied");
		expect(works.stdout).toContain("ok   read the agent's /proc/<pid>/environ: denied");
		expect(works.stdout).not.toContain("FAIL");
		expect(works.code).toBe(0);

		const without = await sandboxCheck(tree.work, { ...env, PATH: "/nonexistent" });
		expect(without.stdout).toContain("bwrap (bubblewrap) is not on the PATH");
		expect(without.code).toBe(1);
	});
});
