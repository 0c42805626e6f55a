import type { SandboxLimits, SandboxMode, SandboxNetwork, SandboxSettings } from "./types.js";

/** Mode order, loosest first. */
const MODE_ORDER: readonly SandboxMode[] = ["off", "workspace-write", "read-only"];

/** Whether `mode` lets commands do more than `floor`. */
export function isLooserMode(mode: SandboxMode, floor: SandboxMode): boolean {
	return MODE_ORDER.indexOf(mode) < MODE_ORDER.indexOf(floor);
}

function stricterMode(a: SandboxMode, b: SandboxMode): SandboxMode {
	return isLooserMode(a, b) ? b : a;
}

/** The stricter of two network settings: off, then the hosts both lists allow, then on. */
export function stricterNetwork(a: SandboxNetwork, b: SandboxNetwork): SandboxNetwork {
	if (a === "off" || b === "off") return "off";
	if (a === "on") return b;
	if (b === "on") return a;
	const inB = new Set(b);
	const both = a.filter((host) => inB.has(host));
	return both.length > 0 ? both : "off";
}

function smaller(a: number | undefined, b: number | undefined): number | undefined {
	if (a === undefined) return b;
	if (b === undefined) return a;
	return Math.min(a, b);
}

function stricterLimits(a: SandboxLimits | undefined, b: SandboxLimits | undefined): SandboxLimits {
	const limits: SandboxLimits = {};
	for (const key of ["memoryMb", "processes", "cpuSeconds"] as const) {
		const value = smaller(a?.[key], b?.[key]);
		if (value !== undefined) limits[key] = value;
	}
	return limits;
}

/** The sandbox in effect, and the mode below which the project does not let it go. */
export interface EffectiveSandboxSettings {
	mode: SandboxMode;
	/** The project's mode: `set_sandbox_mode` may not go looser. */
	floor: SandboxMode;
	floorSource?: string;
	writableRoots: string[];
	network: SandboxNetwork;
	denyRead: string[];
	limits: SandboxLimits;
	/** What was ignored (a project that tried to loosen the user's sandbox). */
	warnings: string[];
}

export interface SandboxLayers {
	user?: SandboxSettings;
	project?: { source: string; block: SandboxSettings };
	/** `--sandbox MODE`: replaces the user's mode. */
	flagMode?: SandboxMode;
}

/**
 * The user's sandbox, with the flag's mode over it, made stricter (never looser) by the project's:
 * a stricter mode, a narrower network, more hidden paths, lower limits. A project cannot add
 * writable roots: it would widen what commands may write.
 */
export function effectiveSandboxSettings({ user, project, flagMode }: SandboxLayers): EffectiveSandboxSettings {
	const warnings: string[] = [];
	const own = project?.block;
	const userMode = flagMode ?? user?.mode ?? "off";
	const floor = own?.mode ?? "off";
	if (own?.writableRoots !== undefined && own.writableRoots.length > 0) {
		warnings.push(`${project?.source}: sandbox.writableRoots is ignored: a project may only make the sandbox stricter`);
	}
	const effective: EffectiveSandboxSettings = {
		mode: stricterMode(userMode, floor),
		floor,
		writableRoots: [...(user?.writableRoots ?? [])],
		network: stricterNetwork(user?.network ?? "off", own?.network ?? "on"),
		denyRead: [...(user?.denyRead ?? []), ...(own?.denyRead ?? [])],
		limits: stricterLimits(user?.limits, own?.limits),
		warnings,
	};
	if (own?.mode !== undefined && project) effective.floorSource = project.source;
	return effective;
}
