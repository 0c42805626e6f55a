import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { expect, it } from "vitest";
import { useRpcHarness } from "../rpc/helpers.js";
import { toolReply } from "../support/llm-server.js";
import { bash, callTool, describeWithBubblewrap, makeTree, NOBODY, SECRET_KEY, startSandboxed } from "./support.js";

const harness = useRpcHarness();

/** Whether a process whose command line starts with `marker` runs (a vanished process counts as none). */
function processRunning(marker: string): boolean {
	return readdirSync("/proc")
		.filter((name) => /^\d+$/.test(name))
		.some((pid) => {
			try {
				return readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith(marker);
			} catch {
				return false;
			}
		});
}

/** Polls `condition` every 20 ms for up to 10 s. */
async function waitUntil(condition: () => boolean): Promise<void> {
	for (let tries = 0; tries < 500 && !condition(); tries++) await sleep(20);
}

/** The escapes of docs/sandbox.md, each tried by the model's bash tool; as root and as an unprivileged user. */
for (const uid of [undefined, NOBODY]) {
	const who = uid === undefined ? "as root" : "as an unprivileged user";
	const runnable = uid === undefined || process.getuid?.() === 0;
	describeWithBubblewrap(`sandbox escapes ${who}`, () => {
		it.runIf(runnable)(
			"keeps the agent's environment, secrets and everything outside the workspace out of reach",
			async () => {
				const { server } = harness;
				const tree = makeTree(server, {}, uid);
				const agent = await startSandboxed(tree, { args: ["--sandbox", "workspace-write"], uid });
				const me = await bash(agent, server, "id -u");
				expect(me.text.trim()).toBe(String(uid ?? 0));

				const environ = await bash(
					agent,
					server,
					"cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c ANTHROPIC; ls /proc | grep -c '^[0-9]'",
				);
				expect(environ.text).not.toContain(SECRET_KEY);
				expect(Number(environ.text.split("\n")[0])).toBe(0);
				expect(environ.details?.sandbox).toMatchObject({ mode: "workspace-write", network: "off" });

				const ssh = await bash(
					agent,
					server,
					`cat ${tree.home}/.ssh/id_rsa; cat ${tree.home}/.aws/credentials; cat ${tree.agentDir}/auth.json`,
				);
				expect(ssh.text).not.toContain("PRIVATE-KEY-MATERIAL");
				expect(ssh.text).not.toContain("AWS-SECRET");
				expect(ssh.text).not.toContain("auth-secret");

				const outside = await bash(agent, server, `echo x > ${tree.home}/outside.txt`);
				expect(outside.isError).toBe(true);
				expect(existsSync(join(tree.home, "outside.txt"))).toBe(false);
				expect(outside.details?.sandbox).toMatchObject({
					denied: [{ kind: "write", target: `${tree.home}/outside.txt` }],
				});
				expect(outside.text).toContain('"escalate": true');

				symlinkSync(join(tree.home, "linked.txt"), join(tree.work, "link"));
				const link = await bash(agent, server, "echo x > link");
				expect(link.isError).toBe(true);
				expect(existsSync(join(tree.home, "linked.txt"))).toBe(false);

				const dotdot = await bash(agent, server, "echo x > ../escape.txt");
				expect(dotdot.isError).toBe(true);
				expect(existsSync(join(tree.root, "escape.txt"))).toBe(false);

				const hooks = await bash(
					agent,
					server,
					"echo 'touch /pwned' > .git/hooks/post-commit; echo '[core] x=1' >> .git/config",
				);
				expect(hooks.isError).toBe(true);
				expect(existsSync(join(tree.work, ".git", "hooks", "post-commit"))).toBe(false);
				expect(readFileSync(join(tree.work, ".git", "config"), "utf8")).not.toContain("x=1");

				const bashrc = await bash(agent, server, `echo evil >> ${tree.home}/.bashrc`);
				expect(bashrc.isError).toBe(true);
				expect(readFileSync(join(tree.home, ".bashrc"), "utf8")).toBe("# the user's bashrc\n");

				const commit = await bash(
					agent,
					server,
					"echo change > README.md && mkdir -p src && echo 1 > src/a.txt && git add -A && git commit -qm change && git log --oneline | wc -l",
				);
				expect(commit.isError, commit.text).toBe(false);
				expect(commit.text.trim()).toBe("2");

				const tmp = await bash(agent, server, "echo scratch > /tmp/scratch && cat /tmp/scratch");
				expect(tmp.text.trim()).toBe("scratch");
			},
		);
	});
}

describeWithBubblewrap("sandbox escapes through git, sockets and leftovers", () => {
	it("keeps hooks of every repository read-only (even a missing hooks folder, a nested checkout) and hides the system's sockets", async () => {
		const { server } = harness;
		const tree = makeTree(server, {});
		rmSync(join(tree.work, ".git", "hooks"), { recursive: true, force: true });
		const nested = join(tree.work, "vendor", "lib");
		mkdirSync(nested, { recursive: true });
		spawnSync("git", ["init", "-q"], { cwd: nested });
		const socketPath = `/run/atomic-sandbox-test-${process.pid}.sock`;
		const socketServer = createServer().listen(socketPath);
		await once(socketServer, "listening");
		try {
			const agent = await startSandboxed(tree, { args: ["--sandbox", "workspace-write"] });
			const hooks = await bash(agent, server, "mkdir -p .git/hooks; echo 'touch /x' > .git/hooks/pre-commit");
			expect(hooks.isError).toBe(true);
			expect(existsSync(join(tree.work, ".git", "hooks", "pre-commit"))).toBe(false);
			const inner = await bash(agent, server, "echo 'touch /x' > vendor/lib/.git/hooks/post-checkout");
			expect(inner.isError).toBe(true);
			expect(existsSync(join(nested, ".git", "hooks", "post-checkout"))).toBe(false);
			const socket = await bash(agent, server, `test -S ${socketPath} && echo visible || echo hidden`);
			expect(socket.text.trim()).toBe("hidden");
		} finally {
			socketServer.close();
		}
	});

	it("a timeout ends the sandboxed command and every process in it", async () => {
		const { server } = harness;
		const tree = makeTree(server, { sandbox: { mode: "workspace-write" } });
		const agent = await startSandboxed(tree);
		const marker = `atomic-timeout-${process.pid}`;
		const result = await bash(agent, server, `(exec -a ${marker} sleep 600) & exec -a ${marker}-main sleep 600`, {
			timeout: 1,
		});
		expect(result.isError).toBe(true);
		expect(result.text).toContain("timed out after 1 seconds");
		await waitUntil(() => !processRunning(marker));
		expect(processRunning(marker)).toBe(false);
	});

	it("ends every process a command left behind when the agent dies", async () => {
		const { server } = harness;
		const tree = makeTree(server, { sandbox: { mode: "workspace-write" } });
		const agent = await startSandboxed(tree);
		const marker = `atomic-leftover-${process.pid}`;
		server.enqueue(toolReply("bash", { command: `(exec -a ${marker} sleep 600) & sleep 600` }));
		const start = agent.mark();
		await agent.request({ type: "prompt", message: "go" });
		await agent.waitFor((record) => record.type === "tool_execution_start", { start });
		const running = () => processRunning(marker);
		await waitUntil(running);
		expect(running()).toBe(true);
		agent.kill("SIGKILL");
		await agent.exited;
		await waitUntil(() => !running());
		expect(running()).toBe(false);
	});
});

describeWithBubblewrap("sandbox modes and settings", () => {
	it("read-only mode lets commands read and write only a private /tmp", async () => {
		const { server } = harness;
		const tree = makeTree(server, { sandbox: { mode: "read-only" } });
		const agent = await startSandboxed(tree);
		const state = (await agent.ok({ type: "get_state" })) as { sandbox: Record<string, unknown> };
		expect(state.sandbox).toEqual({ mode: "read-only", network: "off", available: true, mechanism: "bubblewrap" });
		const read = await bash(agent, server, "cat README.md");
		expect(read.text.trim()).toBe("hello");
		const write = await bash(agent, server, "echo x > new.txt");
		expect(write.isError).toBe(true);
		expect(existsSync(join(tree.work, "new.txt"))).toBe(false);
		const tmp = await bash(agent, server, "echo t > /tmp/t && cat /tmp/t");
		expect(tmp.text.trim()).toBe("t");
	});

	it("set_sandbox_mode changes the mode, announced in state_changed; a project's mode is a floor", async () => {
		const { server } = harness;
		const tree = makeTree(server, {});
		writeFileSync(join(tree.work, ".atomic-settings-placeholder"), "");
		const agent = await startSandboxed(tree);
		const off = (await agent.ok({ type: "get_state" })) as { sandbox: { mode: string } };
		expect(off.sandbox.mode).toBe("off");
		const outsideOff = await bash(agent, server, `echo x > ${tree.home}/free.txt`);
		expect(outsideOff.isError).toBe(false);
		expect(outsideOff.details?.sandbox).toBeUndefined();

		const start = agent.mark();
		await agent.ok({ type: "set_sandbox_mode", mode: "workspace-write" });
		const changed = await agent.waitFor((record) => record.type === "state_changed", { start });
		expect(changed.changes).toMatchObject({ sandbox: { mode: "workspace-write", available: true } });
		const outsideOn = await bash(agent, server, `echo x > ${tree.home}/blocked.txt`);
		expect(outsideOn.isError).toBe(true);
		expect(existsSync(join(tree.home, "blocked.txt"))).toBe(false);

		const bad = await agent.request({ type: "set_sandbox_mode", mode: "everything" });
		expect(bad.success).toBe(false);
	});

	it("a project's settings make the sandbox stricter, never looser", async () => {
		const { server } = harness;
		const tree = makeTree(server, { sandbox: { mode: "off", network: "on" } });
		const project = join(tree.work, ".atomic");
		const { mkdirSync } = await import("node:fs");
		mkdirSync(project);
		writeFileSync(
			join(project, "settings.json"),
			JSON.stringify({ sandbox: { mode: "workspace-write", network: "off", writableRoots: [tree.home] } }),
		);
		const agent = await startSandboxed(tree);
		const state = (await agent.ok({ type: "get_state" })) as { sandbox: Record<string, unknown> };
		expect(state.sandbox).toMatchObject({ mode: "workspace-write", network: "off" });
		expect(agent.stderr).toContain("sandbox.writableRoots is ignored");
		const refused = await agent.request({ type: "set_sandbox_mode", mode: "off" });
		expect(refused.success).toBe(false);
		expect(String(refused.error)).toContain("looser");
		const home = await bash(agent, server, `echo x > ${tree.home}/not-a-root.txt`);
		expect(home.isError).toBe(true);
	});

	it("fails closed: without bwrap no command runs, and start-up and get_state say why", async () => {
		const { server } = harness;
		const tree = makeTree(server, {});
		const agent = await startSandboxed(tree, { args: ["--sandbox", "workspace-write"], env: { PATH: "/nonexistent" } });
		expect(agent.stderr).toContain("bwrap (bubblewrap) is not on the PATH");
		const state = (await agent.ok({ type: "get_state" })) as { sandbox: Record<string, unknown> };
		expect(state.sandbox).toMatchObject({ mode: "workspace-write", available: false });
		expect(String(state.sandbox.reason)).toContain("bwrap");
		const attempt = await bash(agent, server, `/bin/touch ${tree.home}/ran.txt`);
		expect(attempt.isError).toBe(true);
		expect(attempt.text).toContain("the command was not run");
		expect(existsSync(join(tree.home, "ran.txt"))).toBe(false);
	});
});

describeWithBubblewrap("file tools under the sandbox", () => {
	it("write, edit and read follow the same paths: links and .. resolved, hidden paths refused", async () => {
		const { server } = harness;
		const tree = makeTree(server, { sandbox: { mode: "workspace-write" } });
		symlinkSync(tree.home, join(tree.work, "home-link"));
		const agent = await startSandboxed(tree);
		const inside = await callTool(agent, server, "write", { path: "notes/a.txt", content: "ok" });
		expect(inside.isError, inside.text).toBe(false);
		for (const path of ["../escape.txt", "home-link/evil.txt", `${tree.home}/.bashrc`, ".git/hooks/pre-commit"]) {
			const refused = await callTool(agent, server, "write", { path, content: "x" });
			expect(refused.isError, path).toBe(true);
			expect(refused.text).toContain("The sandbox (workspace-write) refuses to write");
		}
		expect(readFileSync(join(tree.home, ".bashrc"), "utf8")).toBe("# the user's bashrc\n");
		expect(existsSync(join(tree.home, "evil.txt"))).toBe(false);
		const edit = await callTool(agent, server, "edit", {
			path: `${tree.home}/.bashrc`,
			oldText: "bashrc",
			newText: "x",
		});
		expect(edit.isError).toBe(true);
		const read = await callTool(agent, server, "read", { path: "home-link/.ssh/id_rsa" });
		expect(read.isError).toBe(true);
		expect(read.text).toContain("hidden from the model");
		const grep = await callTool(agent, server, "grep", { pattern: "PRIVATE-KEY|AWS-SECRET", path: tree.home });
		expect(grep.text).not.toContain("PRIVATE-KEY");
		expect(grep.text).not.toContain("AWS-SECRET");
		const find = await callTool(agent, server, "find", { pattern: "**/id_rsa", path: tree.home });
		expect(find.text).not.toContain("id_rsa");
	});
});
