import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Pids of processes (not zombies) whose argv is exactly `args`. Tests use arguments no other
 * process has (e.g. `sleep 30.101`), so the answer is about their own children only.
 */
export function livingProcesses(args: string[]): number[] {
	const wanted = `${args.join("\0")}\0`;
	const pids: number[] = [];
	for (const entry of readdirSync("/proc")) {
		if (!/^\d+$/.test(entry)) continue;
		let commandLine: string;
		let stat: string;
		try {
			commandLine = readFileSync(`/proc/${entry}/cmdline`, "utf8");
			stat = readFileSync(`/proc/${entry}/stat`, "utf8");
		} catch (error) {
			// The process ended between listing and reading: it is not alive.
			if (error instanceof Error && "code" in error && (error.code === "ENOENT" || error.code === "ESRCH")) continue;
			throw error;
		}
		if (commandLine !== wanted) continue;
		// The state letter follows the parenthesised command name.
		const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
		if (state !== "Z") pids.push(Number(entry));
	}
	return pids;
}

/**
 * Shell code that prints "started" once every background job is running `sleep <duration>`
 * (a job is a forked shell until it execs), so a test can await that line instead of guessing.
 */
export function announceWhenRunning(duration: string): string {
	// Builtins only: read the first two NUL-separated arguments until they are "sleep <duration>".
	const isSleeping = `{ read -r -d '' arg0 && read -r -d '' arg1; } < /proc/$pid/cmdline && [ "$arg0 $arg1" = "sleep ${duration}" ]`;
	return `for pid in $(jobs -p); do until ${isSleeping}; do :; done; done; echo started`;
}

/** Collects streamed text and lets a test await the moment it contains something. */
export function waitForText() {
	let text = "";
	let waiter: { expected: string; resolve: () => void } | undefined;
	return {
		onData(_channel: string, delta: string): void {
			text += delta;
			if (waiter && text.includes(waiter.expected)) waiter.resolve();
		},
		until(expected: string): Promise<void> {
			if (text.includes(expected)) return Promise.resolve();
			return new Promise((resolve) => {
				waiter = { expected, resolve };
			});
		},
	};
}

/** Resolves once no living process has exactly `args` as its argv; rejects after `timeoutMs`. */
export async function waitUntilGone(args: string[], timeoutMs = 5000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (livingProcesses(args).length > 0) {
		if (Date.now() > deadline) throw new Error(`${args.join(" ")} still runs after ${timeoutMs} ms`);
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}

/** Resolves once `path` exists; rejects after `timeoutMs`. */
export async function waitForPath(path: string, timeoutMs = 5000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!existsSync(path)) {
		if (Date.now() > deadline) throw new Error(`${path} did not appear within ${timeoutMs} ms`);
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}

/** Every live descendant of `root`, from /proc's parent links. */
export function descendants(root: number): number[] {
	const parents = new Map<number, number>();
	for (const name of readdirSync("/proc")) {
		if (!/^\d+$/.test(name)) continue;
		let stat: string;
		try {
			stat = readFileSync(join("/proc", name, "stat"), "utf8");
		} catch (error) {
			// The process ended between the listing and the read.
			if (error instanceof Error && "code" in error && (error.code === "ENOENT" || error.code === "ESRCH")) continue;
			throw error;
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ")".
		const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
		parents.set(Number(name), ppid);
	}
	const found: number[] = [];
	for (const pid of parents.keys()) {
		for (let up = parents.get(pid); up !== undefined && up > 1; up = parents.get(up)) {
			if (up === root) {
				found.push(pid);
				break;
			}
		}
	}
	return found;
}

/** A process's environment as /proc shows it (NUL-separated); empty once it has ended. */
export function environmentOf(pid: number): string {
	try {
		return readFileSync(join("/proc", String(pid), "environ"), "utf8");
	} catch (error) {
		if (error instanceof Error && "code" in error && (error.code === "ENOENT" || error.code === "ESRCH")) return "";
		throw error;
	}
}
