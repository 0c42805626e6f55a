/** How much the model's commands may do (docs/sandbox.md). */
export const SANDBOX_MODES = ["off", "read-only", "workspace-write"] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** Network inside the sandbox: none, all, or only these host patterns (`host`, `*.domain`). */
export type SandboxNetwork = "off" | "on" | string[];

export interface SandboxLimits {
	/** Memory a command's process may allocate, in MiB (RLIMIT_DATA; cgroup memory when there is one). */
	memoryMb?: number;
	/** Processes the command may run at once. */
	processes?: number;
	/** CPU seconds each process of the command may use. */
	cpuSeconds?: number;
}

/** The `sandbox` block of settings.json, and what the flag and RPC change. */
export interface SandboxSettings {
	mode?: SandboxMode;
	writableRoots?: string[];
	network?: SandboxNetwork;
	denyRead?: string[];
	limits?: SandboxLimits;
}

/** What a command was refused, as far as it can be known. */
export interface SandboxDenial {
	kind: "write" | "read" | "network" | "limit";
	target: string;
}

/** `details.sandbox` of a bash result that ran in the sandbox. */
export interface SandboxDetails {
	mode: SandboxMode;
	network: SandboxNetwork;
	denied: SandboxDenial[];
}

/** Whether the sandbox can be made on this machine (`get_state.sandbox`). */
export interface SandboxAvailability {
	available: boolean;
	mechanism: "bubblewrap";
	/** Why not, when it is not. */
	reason?: string;
}

/** `get_state.sandbox`. */
export interface SandboxState extends SandboxAvailability {
	mode: SandboxMode;
	network: SandboxNetwork;
}

export function isSandboxMode(value: unknown): value is SandboxMode {
	return typeof value === "string" && (SANDBOX_MODES as readonly string[]).includes(value);
}
