import type { SandboxPolicy } from "./policy.js";
import { isWithin, realPath } from "./real-path.js";

/** Why the sandbox refuses a file tool's access, in words the model understands. */
export class SandboxRefusal extends Error {
	constructor(
		message: string,
		readonly kind: "read" | "write",
		readonly target: string,
	) {
		super(message);
		this.name = "SandboxRefusal";
	}
}

function resolved(path: string): string {
	try {
		return realPath(path);
	} catch (error) {
		throw new SandboxRefusal(
			`The sandbox refuses ${path}: ${error instanceof Error ? error.message : String(error)}`,
			"read",
			path,
		);
	}
}

function hiddenBy(policy: SandboxPolicy, real: string): string | undefined {
	return policy.denyRead.find((denied) => isWithin(real, denied));
}

/** Throws a SandboxRefusal when the policy hides `path` (absolute) from the model. */
export function checkRead(policy: SandboxPolicy, path: string): void {
	const real = resolved(path);
	const hidden = hiddenBy(policy, real);
	if (hidden !== undefined) {
		throw new SandboxRefusal(
			`The sandbox refuses to read ${path}: ${hidden} is hidden from the model (sandbox.denyRead).`,
			"read",
			path,
		);
	}
}

/**
 * Throws a SandboxRefusal unless `path` (absolute) may be written: inside a writable root once
 * every link and `..` is resolved, and not in a read-only or hidden part of it.
 */
export function checkWrite(policy: SandboxPolicy, path: string): void {
	const real = resolved(path);
	const refuse = (why: string) =>
		new SandboxRefusal(`The sandbox (${policy.mode}) refuses to write ${path}: ${why}`, "write", path);
	if (policy.mode === "read-only") throw refuse("commands and tools may not write files in read-only mode.");
	const shown = real === path ? "" : ` (it resolves to ${real})`;
	if (!policy.writableRoots.some((root) => isWithin(real, root))) {
		throw refuse(`it is outside the writable roots (${policy.writableRoots.join(", ")})${shown}.`);
	}
	const locked = policy.readOnly.find((readOnly) => isWithin(real, readOnly));
	if (locked !== undefined) throw refuse(`${locked} stays read-only in the sandbox${shown}.`);
	const hidden = hiddenBy(policy, real);
	if (hidden !== undefined) throw refuse(`${hidden} is hidden from the model${shown}.`);
}
