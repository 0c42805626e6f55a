import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { useRpcHarness } from "../rpc/helpers.js";
import { bash, describeWithBubblewrap, makeTree, NOBODY, startSandboxed } from "./support.js";

const harness = useRpcHarness();
let web: Server;
let port = 0;

beforeAll(async () => {
	web = createServer((_request, response) => response.end("reached\n"));
	await new Promise<void>((resolve) => web.listen(0, "127.0.0.1", resolve));
	port = (web.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => web.close(() => resolve())));

/** A plain HTTP GET with bash's /dev/tcp (no curl needed): prints the body or fails. */
function get(host: string, path = "/"): string {
	return `exec 3<>/dev/tcp/${host}/${port} && printf 'GET ${path} HTTP/1.0\\r\\nHost: ${host}\\r\\n\\r\\n' >&3 && cat <&3 | tail -1`;
}

describeWithBubblewrap("sandbox network", () => {
	it("is off by default (loopback of the sandbox's own only) and on when set", async () => {
		const { server } = harness;
		const off = await startSandboxed(makeTree(server, { sandbox: { mode: "workspace-write" } }));
		const denied = await bash(off, server, get("127.0.0.1"));
		expect(denied.isError).toBe(true);
		expect(denied.text).not.toContain("reached");
		expect(denied.details?.sandbox).toMatchObject({ network: "off", denied: [{ kind: "network" }] });

		const on = await startSandboxed(makeTree(server, { sandbox: { mode: "workspace-write", network: "on" } }));
		const allowed = await bash(on, server, get("127.0.0.1"));
		expect(allowed.isError, allowed.text).toBe(false);
		expect(allowed.text.trim()).toBe("reached");
	});
});

describeWithBubblewrap("sandbox network allow-list", () => {
	it("reaches listed hosts by name through the proxy and refuses the others with a clear error", async () => {
		const { server } = harness;
		const agent = await startSandboxed(
			makeTree(server, { sandbox: { mode: "workspace-write", network: ["localhost"] } }),
		);
		const allowed = await bash(agent, server, `curl -sS --max-time 10 http://localhost:${port}/package`);
		expect(allowed.isError, allowed.text).toBe(false);
		expect(allowed.text.trim()).toBe("reached");

		const plain = await bash(agent, server, `curl -sS --max-time 10 http://127.0.0.1:${port}/`);
		expect(plain.text).toContain("atomic sandbox: 127.0.0.1 is not on the network allow-list");
		expect(plain.details?.sandbox).toMatchObject({
			network: ["localhost"],
			denied: expect.arrayContaining([{ kind: "network", target: "127.0.0.1" }]),
		});

		const tunnel = await bash(agent, server, "curl -sS --max-time 10 https://example.com/");
		expect(tunnel.isError).toBe(true);
		expect(tunnel.details?.sandbox).toMatchObject({
			denied: expect.arrayContaining([{ kind: "network", target: "example.com" }]),
		});

		const direct = await bash(agent, server, get("127.0.0.1"));
		expect(direct.isError).toBe(true);
		expect(direct.text).not.toContain("reached");
	});
});

describeWithBubblewrap("npm through the allow-list", () => {
	it("installs a package from an allowed registry into the workspace", async () => {
		const { server } = harness;
		const tree = makeTree(server, { sandbox: { mode: "workspace-write", network: ["localhost"] } });
		const packageDir = join(tree.root, "pkg", "package");
		mkdirSync(packageDir, { recursive: true });
		writeFileSync(join(packageDir, "package.json"), JSON.stringify({ name: "fake-pkg", version: "1.0.0" }));
		writeFileSync(join(packageDir, "index.js"), "module.exports = 42;\n");
		const tarball = join(tree.root, "fake-pkg-1.0.0.tgz");
		spawnSync("tar", ["czf", tarball, "-C", join(tree.root, "pkg"), "package"]);
		const bytes = readFileSync(tarball);
		const integrity = `sha512-${createHash("sha512").update(bytes).digest("base64")}`;
		const registry = createServer((request, response) => {
			const base = `http://localhost:${(registry.address() as AddressInfo).port}`;
			if (request.url === "/fake-pkg") {
				response.setHeader("content-type", "application/json");
				response.end(
					JSON.stringify({
						name: "fake-pkg",
						"dist-tags": { latest: "1.0.0" },
						versions: {
							"1.0.0": {
								name: "fake-pkg",
								version: "1.0.0",
								dist: { tarball: `${base}/fake-pkg/-/fake-pkg-1.0.0.tgz`, integrity },
							},
						},
					}),
				);
			} else if (request.url === "/fake-pkg/-/fake-pkg-1.0.0.tgz") response.end(bytes);
			else response.writeHead(404).end("{}");
		});
		await new Promise<void>((resolve) => registry.listen(0, "127.0.0.1", resolve));
		try {
			const registryPort = (registry.address() as AddressInfo).port;
			writeFileSync(join(tree.work, "package.json"), JSON.stringify({ name: "app", version: "1.0.0" }));
			const agent = await startSandboxed(tree);
			const install = await bash(
				agent,
				server,
				`npm install --registry http://localhost:${registryPort}/ --no-audit --no-fund fake-pkg 2>&1 && node -p "require('fake-pkg')"`,
				{ timeout: 60 },
			);
			expect(install.isError, install.text).toBe(false);
			expect(install.text.trim().split("\n").at(-1)).toBe("42");
			expect(existsSync(join(tree.work, "node_modules", "fake-pkg", "index.js"))).toBe(true);
		} finally {
			registry.close();
		}
	});
});

describeWithBubblewrap("sandbox limits", () => {
	for (const uid of [undefined, NOBODY]) {
		const who = uid === undefined ? "root" : "an unprivileged user";
		it.runIf(uid === undefined || process.getuid?.() === 0)(
			`a fork bomb ends that command and nothing else (${who})`,
			async () => {
				const { server } = harness;
				const tree = makeTree(server, { sandbox: { mode: "workspace-write", limits: { processes: 40 } } }, uid);
				const agent = await startSandboxed(tree, { uid });
				const bomb = await bash(agent, server, "bomb() { bomb | bomb & }; bomb; sleep 1; echo survived", {
					timeout: 20,
				});
				expect(bomb.details?.sandbox).toMatchObject({
					denied: expect.arrayContaining([{ kind: "limit", target: "processes" }]),
				});
				const after = await bash(agent, server, "echo still here");
				expect(after.text.trim()).toBe("still here");
				const state = await agent.request({ type: "get_state" });
				expect(state.success).toBe(true);
			},
		);
	}

	it("ends a command past its memory", async () => {
		const { server } = harness;
		const tree = makeTree(server, { sandbox: { mode: "workspace-write", limits: { memoryMb: 64 } } });
		const agent = await startSandboxed(tree);
		const memory = await bash(agent, server, 'printf -v x "%200000000s" ""; printf %s "$x" | wc -c');
		expect(memory.isError).toBe(true);
		expect(memory.text).not.toContain("200000000\n");
		expect(memory.details?.sandbox).toMatchObject({ denied: [{ kind: "limit", target: "memoryMb" }] });
	});

	it("ends a command past its CPU time", async () => {
		const { server } = harness;
		const tree = makeTree(server, { sandbox: { mode: "workspace-write", limits: { cpuSeconds: 1 } } });
		const agent = await startSandboxed(tree);
		const cpu = await bash(agent, server, "while :; do :; done", { timeout: 60 });
		expect(cpu.isError).toBe(true);
		expect(cpu.text).not.toContain("timed out");
		expect(cpu.details?.sandbox).toMatchObject({ denied: [{ kind: "limit", target: "cpuSeconds" }] });
	});
});
