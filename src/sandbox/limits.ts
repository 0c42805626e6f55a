import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { errorCode, errorMessage } from "../platform/errors.js";
import type { SandboxLimits } from "./types.js";

/**
 * The shell lines that set a command's limits before it runs, as hard limits it cannot raise
 * (the CPU time's soft limit a second below its hard one): memory as RLIMIT_DATA (what a process allocates; unlike RLIMIT_AS it leaves address space that
 * runtimes such as V8 only reserve), CPU seconds as RLIMIT_CPU, processes as RLIMIT_NPROC (counted
 * in the sandbox's own user namespace; root is exempt, so for root a pids cgroup does it).
 */
export function limitLines(limits: SandboxLimits): string[] {
	const lines: string[] = [];
	if (limits.memoryMb !== undefined) lines.push(`ulimit -d ${Math.max(1, Math.floor(limits.memoryMb)) * 1024}`);
	if (limits.cpuSeconds !== undefined) {
		// SIGXCPU at the limit (the command can tell), SIGKILL a second later for one that ignores it.
		const seconds = Math.max(1, Math.ceil(limits.cpuSeconds));
		lines.push(`ulimit -t ${seconds + 1}`, `ulimit -S -t ${seconds}`);
	}
	if (limits.processes !== undefined) lines.push(`ulimit -u ${Math.max(1, Math.floor(limits.processes))}`);
	return lines;
}

/** The folder of this process's pids cgroup (v1 hierarchy or the unified one), if it can be found. */
function ownPidsCgroup(): string | undefined {
	let text: string;
	try {
		text = readFileSync("/proc/self/cgroup", "utf8");
	} catch (error) {
		if (errorCode(error) === "ENOENT") return undefined;
		throw error;
	}
	for (const line of text.split("\n")) {
		const [, controllers, path] = line.split(":");
		if (path === undefined) continue;
		if (controllers?.split(",").includes("pids")) return join("/sys/fs/cgroup/pids", path);
	}
	const unified = text.split("\n").find((line) => line.startsWith("0::"));
	return unified ? join("/sys/fs/cgroup", unified.slice(3)) : undefined;
}

let counter = 0;

/**
 * A pids cgroup of its own for one command (root only: an unprivileged user's limit is
 * RLIMIT_NPROC). `enter` is the file a wrapper writes its pid to; `remove` deletes the group.
 * Throws with the reason when the machine does not let this process make one.
 */
export function makePidsCgroup(processes: number): { enter: string; remove(): void } {
	const parent = ownPidsCgroup();
	if (parent === undefined) throw new Error("no pids cgroup controller is mounted");
	counter += 1;
	const folder = join(parent, `atomic-sandbox-${process.pid}-${counter}`);
	mkdirSync(folder);
	try {
		writeFileSync(join(folder, "pids.max"), String(Math.max(1, Math.floor(processes))));
	} catch (error) {
		rmdirSync(folder);
		throw error;
	}
	return {
		enter: join(folder, "cgroup.procs"),
		remove: () => removeWhenEmpty(folder, 20),
	};
}

/** Removes a cgroup once its last process has gone (they die with the sandbox, a moment after it). */
function removeWhenEmpty(folder: string, tries: number): void {
	try {
		rmdirSync(folder);
	} catch (error) {
		if (tries > 0) setTimeout(() => removeWhenEmpty(folder, tries - 1), 50).unref();
		else process.emitWarning(`Could not remove the sandbox cgroup ${folder}: ${errorMessage(error)}`);
	}
}
