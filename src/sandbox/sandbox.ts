import { dirname } from "node:path";
import { childProcessModule } from "../platform/lazy-builtins.js";
import { bubblewrapArguments, findBubblewrap, SANDBOX_TMP } from "./bubblewrap.js";
import { checkRead, checkWrite } from "./file-policy.js";
import { limitLines, makePidsCgroup } from "./limits.js";
import { type SandboxPlaces, type SandboxPolicy, sandboxPolicy } from "./policy.js";
import type { AllowListProxy } from "./proxy.js";
import { bridgeScript, PROXY_FOLDER_INSIDE, PROXY_PORT_INSIDE } from "./proxy-bridge.js";
import { isWithin, realPath } from "./real-path.js";
import { type EffectiveSandboxSettings, effectiveSandboxSettings, isLooserMode } from "./settings.js";
import type { SandboxAvailability, SandboxMode, SandboxState } from "./types.js";

/** How long the first check of bubblewrap may take. */
const PROBE_TIMEOUT_MS = 10_000;

/** The command as bwrap runs it, with what to undo once it has ended. */
export interface SandboxLaunch {
	file: string;
	args: string[];
	policy: SandboxPolicy;
	/** Removes what the launch made (a cgroup); call once the command has ended. */
	cleanup(): void;
	/** Limits this machine does not let the sandbox enforce for this command, in words. */
	unenforced: string[];
	/** Hosts the allow-list refused while the command ran (other commands' refusals may be among them). */
	refusedHosts(): string[];
}

/** Thrown when a command cannot run because the sandbox cannot be made: nothing ran. */
export class SandboxUnavailableError extends Error {
	constructor(reason: string) {
		super(`The sandbox cannot be made, so the command was not run: ${reason}`);
		this.name = "SandboxUnavailableError";
	}
}

/** bwrap's flags for a namespace check, then the command `exit 0`. */
const PROBE_ARGS = ["--new-session", "--die-with-parent", "--unshare-all", "--ro-bind", "/", "/", "--dev", "/dev"];
PROBE_ARGS.push("--proc", "/proc", "--tmpfs", SANDBOX_TMP, "--", "/bin/sh", "-c", "exit 0");

/**
 * Checks bubblewrap once, synchronously (a fraction of a second, only when a sandbox is wanted):
 * as it is, then with `--unshare-user` (root in a container without CAP_SYS_ADMIN gets no user
 * namespace unless asked). Returns the extra flags that made it work.
 */
function probe(bwrap: string | undefined): { availability: SandboxAvailability; flags: string[] } {
	const unavailable = (reason: string) => ({
		availability: { available: false, mechanism: "bubblewrap", reason } satisfies SandboxAvailability,
		flags: [],
	});
	if (process.platform !== "linux")
		return unavailable(`the sandbox needs Linux with bubblewrap; this is ${process.platform}`);
	if (bwrap === undefined) {
		return unavailable("bwrap (bubblewrap) is not on the PATH; install it (Debian/Ubuntu: apt-get install bubblewrap)");
	}
	let said = "";
	for (const flags of [[], ["--unshare-user"]]) {
		const result = childProcessModule().spawnSync(bwrap, [...flags, ...PROBE_ARGS], {
			stdio: ["ignore", "ignore", "pipe"],
			timeout: PROBE_TIMEOUT_MS,
		});
		if (result.error) return unavailable(`${bwrap} cannot be run: ${result.error.message}`);
		if (result.status === 0) return { availability: { available: true, mechanism: "bubblewrap" }, flags };
		const how = result.signal ? `was killed by ${result.signal}` : `exited with code ${result.status}`;
		const stderr = result.stderr.toString("utf8").trim().slice(0, 500);
		said ||= `it ${how}${stderr ? `: ${stderr}` : ""}`;
	}
	return unavailable(
		`${bwrap} cannot make a sandbox here (${said}); unprivileged user namespaces may be refused (a container's seccomp profile, Ubuntu's AppArmor restriction)`,
	);
}

/**
 * The sandbox of one session: its mode (changed by `set_sandbox_mode`), the policy for a working
 * folder, bubblewrap's availability, the bwrap command for a bash call, the path checks of the
 * file tools, and the escalations the user approved (each runs one call outside the sandbox).
 */
export class Sandbox {
	private modeValue: SandboxMode;
	private availability: SandboxAvailability | undefined;
	/** Flags the probe found bwrap needs here. */
	private flags: string[] = [];
	private bwrap: string | undefined | null = null;
	/** While off: whether bwrap is on the PATH (looked up once; get_state reads it often). */
	private onPath: boolean | undefined;
	private readonly policies = new Map<string, SandboxPolicy | undefined>();
	private readonly escalations = new Set<string>();
	/** The allow-list proxy, started with the first command that needs it. */
	private proxy: AllowListProxy | undefined;

	constructor(
		private readonly settings: EffectiveSandboxSettings,
		private readonly places: Omit<SandboxPlaces, "cwd">,
		/** The PATH bwrap is looked up in. */
		private readonly path: string | undefined,
	) {
		this.modeValue = settings.mode;
	}

	/** A sandbox that is off until a mode is set (SDK sessions made without one). */
	static off(places: Omit<SandboxPlaces, "cwd">, path: string | undefined): Sandbox {
		return new Sandbox(effectiveSandboxSettings({}), places, path);
	}

	get mode(): SandboxMode {
		return this.modeValue;
	}

	/** Throws when `mode` is looser than the project's settings allow. */
	setMode(mode: SandboxMode): void {
		const { floor, floorSource } = this.settings;
		if (isLooserMode(mode, floor)) {
			throw new Error(
				`Sandbox mode "${mode}" is looser than "${floor}", which ${floorSource ?? "the settings"} require`,
			);
		}
		this.modeValue = mode;
		this.policies.clear();
	}

	/**
	 * Whether bubblewrap can make the sandbox here (checked once, on first need). A bwrap inside
	 * `untrusted` (the writable roots: a command could have put it there) is never used.
	 */
	available(untrusted: readonly string[] = []): SandboxAvailability {
		if (this.availability === undefined) {
			this.bwrap = findBubblewrap(this.path, untrusted);
			const found = probe(this.bwrap);
			this.availability = found.availability;
			this.flags = found.flags;
		}
		const bwrap = this.bwrap;
		if (bwrap && untrusted.some((root) => isWithin(bwrap, root))) {
			return { available: false, mechanism: "bubblewrap", reason: `${bwrap} is inside a writable root` };
		}
		return this.availability;
	}

	private bubblewrapOnPath(): boolean {
		this.onPath ??= process.platform === "linux" && findBubblewrap(this.path) !== undefined;
		return this.onPath;
	}

	/** `get_state.sandbox`. Availability is checked only once a mode other than off asks for it. */
	state(): SandboxState {
		// While off, only a look along the PATH (no bwrap is run at start-up); the full check comes with a mode.
		const availability: SandboxAvailability =
			this.modeValue === "off" && this.availability === undefined
				? {
						available: this.bubblewrapOnPath(),
						mechanism: "bubblewrap",
					}
				: this.available();
		return { mode: this.modeValue, network: this.settings.network, ...availability };
	}

	/** Problems of the settings for start-up's stderr (an unavailable sandbox, unusable roots). */
	startupProblems(cwd: string): string[] {
		if (this.modeValue === "off") return [...this.settings.warnings];
		const problems = [...this.settings.warnings, ...(this.policy(cwd)?.problems ?? [])];
		const availability = this.available(this.policy(cwd)?.writableRoots);
		if (!availability.available) {
			problems.push(`sandbox mode ${this.modeValue}: ${availability.reason}; bash commands will be refused`);
		}
		return problems;
	}

	/** The policy for commands in `cwd`; undefined when the mode is off. */
	policy(cwd: string): SandboxPolicy | undefined {
		if (this.modeValue === "off") return undefined;
		if (!this.policies.has(cwd)) {
			this.policies.set(cwd, sandboxPolicy({ ...this.settings, mode: this.modeValue }, { ...this.places, cwd }));
		}
		return this.policies.get(cwd);
	}

	/** Throws a SandboxRefusal when the sandbox hides `path` (absolute); nothing when it is off. */
	checkRead(cwd: string, path: string): void {
		const policy = this.policy(cwd);
		if (policy) checkRead(policy, path);
	}

	/** Throws a SandboxRefusal when the sandbox does not let the tools write `path`; nothing when it is off. */
	checkWrite(cwd: string, path: string): void {
		const policy = this.policy(cwd);
		if (policy) checkWrite(policy, path);
	}

	/** The paths grep, find and ls leave out (the hidden ones); empty when off. */
	hiddenPaths(cwd: string): readonly string[] {
		return this.policy(cwd)?.denyRead ?? [];
	}

	/** The user approved running this tool call outside the sandbox. */
	grantEscalation(toolCallId: string): void {
		this.escalations.add(toolCallId);
	}

	/** Whether this call's escalation was approved; the grant is used up. */
	takeEscalation(toolCallId: string): boolean {
		return this.escalations.delete(toolCallId);
	}

	/** Starts what commands under `policy` need before they run (the allow-list proxy). */
	async prepare(policy: SandboxPolicy): Promise<void> {
		if (typeof policy.network === "string") return;
		if (!this.proxy) {
			// Loaded only when a list is set: the HTTP server is no start-up cost.
			const { AllowListProxy } = await import("./proxy.js");
			this.proxy ??= new AllowListProxy(policy.network);
		}
		await this.proxy.ready();
	}

	/** Stops the proxy, if one was started. */
	dispose(): void {
		this.proxy?.close();
		this.proxy = undefined;
	}

	/**
	 * How to run `<shell> -c <command>` in the sandbox for `policy` (after `prepare`). Throws a SandboxUnavailableError
	 * when bubblewrap cannot make it.
	 */
	launch(policy: SandboxPolicy, shell: string, command: string): SandboxLaunch {
		const availability = this.available(policy.writableRoots);
		if (!availability.available || !this.bwrap) throw new SandboxUnavailableError(availability.reason ?? "unknown");
		const unenforced: string[] = [];
		const lines = limitLines(policy.limits);
		let cgroup: ReturnType<typeof makePidsCgroup> | undefined;
		if (policy.limits.processes !== undefined && process.getuid?.() === 0) {
			try {
				cgroup = makePidsCgroup(policy.limits.processes);
			} catch (error) {
				unenforced.push(
					`processes (root is exempt from RLIMIT_NPROC and no pids cgroup could be made: ${String(error)})`,
				);
			}
		}
		const args = [...this.flags, ...bubblewrapArguments(policy, policy.network === "on")];
		const extra: string[] = [];
		if (typeof policy.network !== "string") {
			if (!this.proxy) throw new SandboxUnavailableError("the network allow-list proxy was not started");
			args.push("--ro-bind", this.proxy.folder, PROXY_FOLDER_INSIDE);
			const address = `http://127.0.0.1:${PROXY_PORT_INSIDE}`;
			for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"]) {
				args.push("--setenv", name, address);
			}
			args.push("--unsetenv", "NO_PROXY", "--unsetenv", "no_proxy");
			// The bridge from the sandbox's loopback to the proxy's socket, running before the command.
			lines.unshift(
				"mkfifo /tmp/.atomic-proxy-ready",
				'{ "$2" -e "$3" >/tmp/.atomic-proxy-ready 2>/dev/null & }',
				'{ read -r ready </tmp/.atomic-proxy-ready; [ "$ready" = ready ] || { echo "atomic sandbox: the network proxy bridge did not start" >&2; exit 126; }; }',
			);
			// The bridge runs on this Node; one installed under /tmp would be hidden by the private /tmp.
			const node = realPath(process.execPath);
			if (isWithin(node, SANDBOX_TMP)) args.push("--ro-bind", dirname(node), dirname(node));
			extra.push(node, bridgeScript());
		}
		const script = [...lines, 'exec "$0" -c "$1"'].join(" && ");
		args.push("--", shell, "-c", script, shell, command, ...extra);
		const proxy = this.proxy;
		const mark = proxy?.mark ?? 0;
		const refusedHosts = () => proxy?.refusedSince(mark) ?? [];
		if (cgroup === undefined) {
			return { file: this.bwrap, args, policy, cleanup: () => undefined, unenforced, refusedHosts };
		}
		const entered = cgroup;
		return {
			file: "/bin/sh",
			args: ["-c", 'echo $$ > "$0" && exec "$@"', entered.enter, this.bwrap, ...args],
			policy,
			cleanup: () => entered.remove(),
			unenforced,
			refusedHosts,
		};
	}
}
