import { type ApprovalMode, isLooser, stricterMode } from "./modes.js";
import { type PermissionRule, parseRule } from "./rules.js";

export const DEFAULT_APPROVAL_TIMEOUT_MS = 60_000;

/** The `permissions` block of one settings file (already checked against its schema). */
export interface PermissionsBlock {
	mode?: ApprovalMode;
	allow?: string[];
	deny?: string[];
	/** How long a request waits for an answer; 0: no limit. */
	timeoutMs?: number;
}

/** A block and the file it came from (named in errors and warnings). */
export interface PermissionLayer {
	source: string;
	block: PermissionsBlock;
}

export interface PermissionSetup {
	/** The user's settings (`<agentDir>/settings.json`). */
	user?: PermissionLayer;
	/** The project's `.atomic/settings.json`: it may only make the policy stricter. */
	project?: PermissionLayer;
	/** A mode chosen for this process (`--approval-mode`), over the user's settings. */
	mode?: ApprovalMode;
}

export interface ResolvedPermissions {
	mode: ApprovalMode;
	/** The loosest mode allowed (the project's mode; "auto" without one). */
	floor: ApprovalMode;
	/** The file that set the floor. */
	floorSource?: string;
	allow: PermissionRule[];
	deny: PermissionRule[];
	timeoutMs: number;
}

export interface PermissionResolution {
	permissions: ResolvedPermissions;
	/** Parts that were ignored because they would loosen the policy. */
	warnings: string[];
	/** Rules that cannot be read: the policy the user wrote is unknown, so it must not run. */
	errors: string[];
}

function parseRules(layer: PermissionLayer, key: "allow" | "deny", errors: string[]): PermissionRule[] {
	const rules: PermissionRule[] = [];
	for (const [index, text] of (layer.block[key] ?? []).entries()) {
		const parsed = parseRule(text);
		if (parsed.ok) rules.push(parsed.rule);
		else errors.push(`${layer.source}: permissions.${key}[${index}]: ${parsed.error}`);
	}
	return rules;
}

/**
 * The policy of a process: the user's mode (or the one chosen for the process), allow rules and
 * timeout, plus the project's deny rules, a stricter mode and a shorter timeout. What a project
 * file says that would loosen the policy is ignored with a warning.
 */
export function resolvePermissions(setup: PermissionSetup): PermissionResolution {
	const warnings: string[] = [];
	const errors: string[] = [];
	const { user, project } = setup;
	let mode = setup.mode ?? user?.block.mode ?? "auto";
	let floor: ApprovalMode = "auto";
	let floorSource: string | undefined;
	const allow = user ? parseRules(user, "allow", errors) : [];
	const deny = user ? parseRules(user, "deny", errors) : [];
	let timeoutMs = user?.block.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
	if (project) {
		const block = project.block;
		deny.push(...parseRules(project, "deny", errors));
		if (block.mode !== undefined) {
			if (block.mode !== "auto") {
				floor = block.mode;
				floorSource = project.source;
			}
			if (isLooser(block.mode, mode)) {
				warnings.push(
					`${project.source}: permissions.mode "${block.mode}" is looser than "${mode}" and is ignored (a project file may only make the policy stricter)`,
				);
			} else if (setup.mode !== undefined && isLooser(setup.mode, block.mode)) {
				warnings.push(
					`--approval-mode ${setup.mode} is looser than "${block.mode}", which ${project.source} requires: using "${block.mode}"`,
				);
			}
			mode = stricterMode(mode, block.mode);
		}
		if (block.allow && block.allow.length > 0) {
			parseRules(project, "allow", errors);
			warnings.push(
				`${project.source}: permissions.allow is ignored (a project file may only make the policy stricter)`,
			);
		}
		if (block.timeoutMs !== undefined) {
			const shorter = block.timeoutMs > 0 && (timeoutMs === 0 || block.timeoutMs < timeoutMs);
			if (shorter) timeoutMs = block.timeoutMs;
			else if (block.timeoutMs !== timeoutMs)
				warnings.push(
					`${project.source}: permissions.timeoutMs ${block.timeoutMs} is ignored: it is not shorter than ${timeoutMs}`,
				);
		}
	}
	return { permissions: { mode, floor, floorSource, allow, deny, timeoutMs }, warnings, errors };
}
