import { spawnSync } from "node:child_process";
import { homedir } from "node:os";
import { SettingsStore } from "../resources/settings.js";
import { describeNetwork, effectiveSandboxSettings, Sandbox, type SandboxMode } from "../sandbox/index.js";

interface Probe {
	what: string;
	command: string;
	/** Whether the command should succeed inside the sandbox. */
	expect: boolean;
}

/**
 * `atomic --sandbox-check`: what the sandbox of this folder would be (mode, roots, hidden paths,
 * network, limits), whether bubblewrap can make it here, and a few commands run in it to show
 * that it holds. Exit code 0 when the sandbox works, 1 when it cannot be made.
 */
export function sandboxCheck({ cwd, agentDir, mode }: { cwd: string; agentDir: string; mode?: SandboxMode }): number {
	const store = new SettingsStore(agentDir, cwd);
	const settings = effectiveSandboxSettings({ ...store.sandboxLayers(), flagMode: mode });
	const checked: SandboxMode = settings.mode === "off" ? "workspace-write" : settings.mode;
	const sandbox = new Sandbox({ ...settings, mode: checked }, { home: homedir(), agentDir }, process.env.PATH);
	const out: string[] = [];
	const availability = sandbox.available();
	out.push(`mode: ${settings.mode}${settings.mode === "off" ? " (checked as workspace-write)" : ""}`);
	out.push(`mechanism: bubblewrap: ${availability.available ? "works" : `unavailable: ${availability.reason}`}`);
	for (const warning of settings.warnings) out.push(`warning: ${warning}`);
	const policy = sandbox.policy(cwd);
	if (!policy) return 1;
	out.push(
		`writable: ${policy.writableRoots.length > 0 ? policy.writableRoots.join(", ") : "(none)"} and a private /tmp`,
	);
	out.push(`read-only inside them: ${policy.readOnly.join(", ")}`);
	out.push(`hidden: ${policy.denyRead.join(", ")}`);
	out.push(`network: ${describeNetwork(policy.network)}`);
	const limits = policy.limits;
	const limitText = Object.entries(limits).map(([key, value]) => `${key} ${value}`);
	out.push(`limits: ${limitText.length > 0 ? limitText.join(", ") : "none set"}`);
	for (const problem of policy.problems) out.push(`problem: ${problem}`);
	if (!availability.available) {
		process.stdout.write(`${out.join("\n")}\nbash commands are refused in this mode until the sandbox can be made.\n`);
		return 1;
	}
	const probes: Probe[] = [
		{ what: "read the working folder", command: "ls . >/dev/null", expect: true },
		{ what: "write outside the writable roots", command: `touch ${homedir()}/.atomic-sandbox-check`, expect: false },
		{ what: "read the agent's /proc/<pid>/environ", command: `test -r /proc/${process.pid}/environ`, expect: false },
		{ what: "reach the network", command: "exec 3<>/dev/tcp/1.1.1.1/53", expect: policy.network === "on" },
	];
	if (policy.mode === "workspace-write") {
		probes.unshift({
			what: "write the working folder",
			command: 't=$(mktemp -p . .atomic-check.XXXXXX) && rm -f "$t"',
			expect: true,
		});
	}
	let failures = 0;
	for (const probe of probes) {
		const launch = sandbox.launch(policy, "/bin/bash", probe.command);
		const result = spawnSync(launch.file, launch.args, { cwd, stdio: "ignore", timeout: 10_000 });
		launch.cleanup();
		const succeeded = result.status === 0;
		const ok = succeeded === probe.expect;
		if (!ok) failures++;
		const verdict = succeeded ? "allowed" : "denied";
		out.push(`${ok ? "ok  " : "FAIL"} ${probe.what}: ${verdict}${ok ? "" : " (unexpected)"}`);
		for (const note of launch.unenforced) out.push(`note: not enforced: ${note}`);
	}
	process.stdout.write(`${out.join("\n")}\n`);
	return failures === 0 ? 0 : 1;
}
