import { accessSync, constants, statSync } from "node:fs";
import { basename, delimiter, dirname, isAbsolute, join } from "node:path";
import type { SandboxPolicy } from "./policy.js";
import { isWithin, realPath, statIfAny } from "./real-path.js";

/** The private temporary folder commands may always write. */
export const SANDBOX_TMP = "/tmp";

function isExecutable(path: string): boolean {
	try {
		accessSync(path, constants.X_OK);
		return statSync(path).isFile();
	} catch {
		return false;
	}
}

/**
 * `bwrap` from the PATH, never from inside `untrusted` folders (the writable roots: a command
 * could put a fake one there). Undefined when there is none.
 */
export function findBubblewrap(path: string | undefined, untrusted: readonly string[] = []): string | undefined {
	for (const folder of (path ?? "").split(delimiter)) {
		if (!folder || !isAbsolute(folder)) continue;
		const candidate = join(folder, "bwrap");
		if (!isExecutable(candidate)) continue;
		const real = realPath(candidate);
		if (untrusted.some((root) => isWithin(real, root))) continue;
		return real;
	}
	return undefined;
}

function exists(path: string): { folder: boolean } | undefined {
	const stats = statIfAny(path);
	return stats ? { folder: stats.isDirectory() } : undefined;
}

/** Where the system keeps its Unix sockets (the Docker daemon, D-Bus, systemd): hidden from commands. */
const RUNTIME_FOLDERS = ["/run", "/var/run"];

/**
 * The runtime folders to hide (an empty tmpfs over each real one) and the folder of
 * /etc/resolv.conf's target to show again when it lives there (name resolution with network on).
 */
function runtimeMasks(): string[] {
	const args: string[] = [];
	for (const folder of RUNTIME_FOLDERS) {
		if (statIfAny(folder)?.isDirectory() && realPath(folder) === folder) args.push("--tmpfs", folder);
	}
	const resolver = statIfAny("/etc/resolv.conf") ? dirname(realPath("/etc/resolv.conf")) : undefined;
	if (resolver && RUNTIME_FOLDERS.some((folder) => isWithin(resolver, folder)) && args.length > 0) {
		args.push("--ro-bind", resolver, resolver);
	}
	return args;
}

/** How a read-only path inside a writable root that does not exist yet is kept from being made. */
function blockCreation(path: string): string[] {
	const name = basename(path);
	if (name === "hooks") return ["--tmpfs", path, "--remount-ro", path];
	// A git config or a start-up dotfile: an empty read-only file stands in (empty changes nothing).
	return name === "config" || name.startsWith(".") ? ["--ro-bind", "/dev/null", path] : [];
}

/**
 * The bwrap arguments before the command: the whole file system read-only, a private /tmp, the
 * system's socket folders hidden, the writable roots bound writable, their protected parts
 * read-only again (made as an empty read-only folder or file when missing, so a command cannot
 * create them), hidden paths masked (an empty read-only folder or /dev/null), new namespaces
 * (network unless it is on), its own /proc, a new session, and death with the agent.
 */
export function bubblewrapArguments(policy: SandboxPolicy, shareNetwork: boolean): string[] {
	const args = ["--new-session", "--die-with-parent", "--unshare-all"];
	if (shareNetwork) args.push("--share-net");
	args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", SANDBOX_TMP, ...runtimeMasks());
	// The private /tmp hides what was there: the working folder comes back (read-only unless a root).
	if (isWithin(policy.cwd, SANDBOX_TMP)) args.push("--ro-bind", policy.cwd, policy.cwd);
	for (const root of policy.writableRoots) args.push("--bind", root, root);
	for (const path of policy.readOnly) {
		if (exists(path)) args.push("--ro-bind", path, path);
		else if (policy.writableRoots.some((root) => isWithin(path, root)) && exists(dirname(path))?.folder) {
			args.push(...blockCreation(path));
		}
	}
	for (const path of policy.denyRead) {
		const found = exists(path);
		if (found?.folder) args.push("--tmpfs", path, "--remount-ro", path);
		else if (found) args.push("--ro-bind", "/dev/null", path);
	}
	args.push("--setenv", "TMPDIR", SANDBOX_TMP, "--chdir", policy.cwd);
	// npm's cache (~/.npm) is outside the writable roots: a private one lets npm install and npm view work.
	const npmCache = process.env.npm_config_cache;
	if (!npmCache || !policy.writableRoots.some((root) => isWithin(npmCache, root))) {
		args.push("--setenv", "npm_config_cache", `${SANDBOX_TMP}/.npm`);
	}
	return args;
}
