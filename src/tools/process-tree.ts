import { readdirSync, readFileSync } from "node:fs";
import { childProcessModule, fsPromises } from "../platform/lazy-builtins.js";
import { randomHex } from "../platform/random.js";
import { isFileSystemError } from "./search-support.js";

/**
 * The variable every shell Atomic starts carries, and every process it starts inherits: it finds
 * descendants that left the shell's process group (`setsid`, daemons) or lost their parent.
 * Its value is a space-separated list of tags, so that shells of an Atomic started by another
 * Atomic's command keep the outer tag too.
 */
export const SHELL_TAG_VARIABLE = "ATOMIC_SHELL_TAG";

/** This process among all others, for tags: drawn at the first shell. */
let instance: string | undefined;
let shellCounter = 0;
const isLinux = process.platform === "linux";
/** Reads of /proc files in flight at once during an asynchronous scan. */
const SCAN_CONCURRENCY = 16;

/** A tag no other shell of any process carries. */
export function newShellTag(): string {
	shellCounter++;
	instance ??= `${process.pid}.${randomHex(4)}`;
	return `${instance}.${shellCounter}`;
}

/** `env` with `tag` added to the shell-tag variable. */
export function taggedEnvironment(env: NodeJS.ProcessEnv, tag: string): NodeJS.ProcessEnv {
	const inherited = env[SHELL_TAG_VARIABLE];
	return { ...env, [SHELL_TAG_VARIABLE]: inherited ? `${inherited} ${tag}` : tag };
}

interface ProcessEntry {
	pid: number;
	ppid: number;
	/** The shell tags in its environment; undefined where environments cannot be read. */
	tags?: string[];
}

export interface ProcessSearch {
	/** Processes to end: those carrying a wanted tag, the roots, and all their descendants. */
	pids: number[];
	/** The wanted tags some process still carries; undefined where that cannot be known. */
	liveTags?: Set<string>;
}

/**
 * Every process that carries one of `tags` in its environment (Linux: /proc/<pid>/environ) or
 * descends from one of `roots` or of those (the parent-pid tree), this process excepted.
 * Elsewhere only the parent-pid tree (from `ps`) is known. Synchronous: for the exit path; a
 * scan reads two files per process on the machine.
 */
export function findProcesses(tags: ReadonlySet<string>, roots: readonly number[]): ProcessSearch {
	return select(isLinux ? procTable() : psTable(), tags, roots);
}

/** findProcesses without blocking the event loop (the reads go to the thread pool). */
export async function findProcessesAsync(tags: ReadonlySet<string>, roots: readonly number[]): Promise<ProcessSearch> {
	return select(isLinux ? await procTableAsync() : psTable(), tags, roots);
}

/**
 * `roots` and their descendants, cheaply: on Linux from /proc/<pid>/task/<tid>/children, which
 * reads only the processes of the tree (none of the rest of the machine).
 */
export function descendantsOf(roots: readonly number[]): number[] {
	if (!isLinux) return select(psTable(), new Set(), roots).pids;
	const found = new Set<number>();
	const pending = [...roots];
	for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
		if (found.has(pid) || pid === process.pid) continue;
		let threads: string[];
		try {
			threads = readdirSync(`/proc/${pid}/task`);
		} catch (error) {
			// Gone already.
			if (isFileSystemError(error)) continue;
			throw error;
		}
		found.add(pid);
		for (const thread of threads) {
			const children = readProcFile(`/proc/${pid}/task/${thread}/children`);
			if (children === undefined) return select(procTable(), new Set(), roots).pids;
			for (const child of children.split(" ")) if (child) pending.push(Number(child));
		}
	}
	return [...found];
}

/** Sends `signal` to each pid; one that is gone already is skipped. */
export function signalProcesses(pids: readonly number[], signal: NodeJS.Signals): void {
	for (const pid of pids) sendSignal(pid, signal);
}

/** Sends a signal to a whole process group (a negative pid) or one process. */
export function sendSignal(pid: number, signal: NodeJS.Signals): void {
	try {
		process.kill(pid, signal);
	} catch (error) {
		// ESRCH: it already exited. EPERM: the pid now belongs to someone else's process.
		if (isFileSystemError(error) && (error.code === "ESRCH" || error.code === "EPERM")) return;
		throw error;
	}
}

function select(table: ProcessEntry[], tags: ReadonlySet<string>, roots: readonly number[]): ProcessSearch {
	const selected = new Set<number>();
	const known = new Set(table.map((entry) => entry.pid));
	const liveTags: Set<string> | undefined = isLinux && table.length > 0 ? new Set() : undefined;
	for (const root of roots) if (known.has(root)) selected.add(root);
	for (const entry of table) {
		for (const tag of entry.tags ?? []) {
			if (!tags.has(tag)) continue;
			selected.add(entry.pid);
			liveTags?.add(tag);
		}
	}
	const children = new Map<number, number[]>();
	for (const entry of table) {
		const siblings = children.get(entry.ppid);
		if (siblings) siblings.push(entry.pid);
		else children.set(entry.ppid, [entry.pid]);
	}
	const pending = [...selected];
	for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
		for (const child of children.get(pid) ?? []) {
			if (selected.has(child)) continue;
			selected.add(child);
			pending.push(child);
		}
	}
	selected.delete(process.pid);
	return liveTags ? { pids: [...selected], liveTags } : { pids: [...selected] };
}

function procPids(names: string[]): string[] {
	return names.filter((name) => name.charCodeAt(0) >= 48 && name.charCodeAt(0) <= 57);
}

function procTable(): ProcessEntry[] {
	let names: string[];
	try {
		names = procPids(readdirSync("/proc"));
	} catch (error) {
		if (isFileSystemError(error)) return [];
		throw error;
	}
	const table: ProcessEntry[] = [];
	for (const name of names) {
		const entry = procEntry(name, readProcFile(`/proc/${name}/stat`), () => readProcFile(`/proc/${name}/environ`));
		if (entry) table.push(entry);
	}
	return table;
}

async function procTableAsync(): Promise<ProcessEntry[]> {
	let names: string[];
	try {
		names = procPids(await fsPromises().readdir("/proc"));
	} catch (error) {
		if (isFileSystemError(error)) return [];
		throw error;
	}
	const table: ProcessEntry[] = [];
	for (let index = 0; index < names.length; index += SCAN_CONCURRENCY) {
		const batch = names.slice(index, index + SCAN_CONCURRENCY);
		const entries = await Promise.all(
			batch.map(async (name) => {
				const [stat, environ] = await Promise.all([
					readProcFileAsync(`/proc/${name}/stat`),
					readProcFileAsync(`/proc/${name}/environ`),
				]);
				return procEntry(name, stat, () => environ);
			}),
		);
		for (const entry of entries) if (entry) table.push(entry);
	}
	return table;
}

/** One process from its stat line ("pid (comm) state ppid ..."; comm may hold spaces and parentheses). */
function procEntry(
	name: string,
	stat: string | undefined,
	environ: () => string | undefined,
): ProcessEntry | undefined {
	if (stat === undefined) return undefined;
	const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
	const pid = Number(name);
	const ppid = Number(fields[1]);
	if (!Number.isInteger(pid) || !Number.isInteger(ppid)) return undefined;
	return { pid, ppid, tags: tagsIn(environ()) };
}

/** The shell tags in an environ block ("NAME=value\0..."). */
function tagsIn(environ: string | undefined): string[] {
	if (!environ) return [];
	const prefix = `${SHELL_TAG_VARIABLE}=`;
	let start = 0;
	if (!environ.startsWith(prefix)) {
		const found = environ.indexOf(`\0${prefix}`);
		if (found === -1) return [];
		start = found + 1;
	}
	const end = environ.indexOf("\0", start);
	return environ.slice(start + prefix.length, end === -1 ? undefined : end).split(" ");
}

/** A /proc file's text, or undefined when the process is gone or not ours to read. */
function readProcFile(path: string): string | undefined {
	try {
		return readFileSync(path, "latin1");
	} catch (error) {
		if (isFileSystemError(error)) return undefined;
		throw error;
	}
}

function readProcFileAsync(path: string): Promise<string | undefined> {
	return fsPromises()
		.readFile(path, "latin1")
		.catch((error: unknown) => {
			if (isFileSystemError(error)) return undefined;
			throw error;
		});
}

/** Parent pids from `ps` where there is no /proc (macOS, the BSDs); empty when ps fails. */
function psTable(): ProcessEntry[] {
	const listing = childProcessModule().spawnSync("ps", ["-A", "-o", "pid=", "-o", "ppid="], {
		encoding: "utf8",
		timeout: 2000,
	});
	if (listing.status !== 0 || typeof listing.stdout !== "string") return [];
	const table: ProcessEntry[] = [];
	for (const line of listing.stdout.split("\n")) {
		const [pid, ppid] = line.trim().split(/\s+/).map(Number);
		if (Number.isInteger(pid) && Number.isInteger(ppid)) table.push({ pid: pid as number, ppid: ppid as number });
	}
	return table;
}
