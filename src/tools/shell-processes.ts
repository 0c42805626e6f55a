import { findProcesses, sendSignal, signalProcesses } from "./process-tree.js";

/** How long the processes of a stopped command get between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 1000;
/** The started-shell list is pruned of shells with no process left once it grows past this. */
const PRUNE_FROM = 256;

interface ShellRecord {
	/** The shell's pid, which is also its process-group id. */
	groupId: number;
	/** The shell has not exited yet. */
	running: boolean;
}

/** Every shell started whose processes may still live on, by tag. */
const shells = new Map<string, ShellRecord>();
let pruneAt = PRUNE_FROM;
let exitHookInstalled = false;
/** Where /proc shows each process's environment, a tag finds processes that left the group. */
const tagsVisible = process.platform === "linux";

/** Records a shell that just started; from now on its processes are ended when this process exits. */
export function registerShell(tag: string, groupId: number): void {
	if (shells.size >= pruneAt) prune();
	shells.set(tag, { groupId, running: true });
	if (exitHookInstalled) return;
	exitHookInstalled = true;
	// However this process ends normally, nothing its commands started outlives it.
	process.once("exit", () => killAllShells());
}

/** The shell itself exited; its background processes may live on. */
export function shellExited(tag: string): void {
	const shell = shells.get(tag);
	if (shell) shell.running = false;
}

/**
 * Ends every process of one command: its process group, every process carrying its tag (those
 * that called setsid included) and their descendants. SIGTERM now, SIGKILL after KILL_GRACE_MS
 * to whatever is left (looked up again, so that children forked meanwhile are found too).
 */
export function stopShellProcesses(tag: string): void {
	const shell = shells.get(tag);
	if (!shell) return;
	signalShells([[tag, shell]], "SIGTERM");
	// Unreferenced: at exit the exit hook kills what is left anyway.
	setTimeout(() => signalShells([[tag, shell]], "SIGKILL"), KILL_GRACE_MS).unref();
}

/** Kills (SIGKILL) every process any shell of this process started, at once (for shutdown). */
export function killAllShells(): void {
	signalShells([...shells], "SIGKILL");
}

/** How many shells are still running (for tests). */
export function liveShellCount(): number {
	let count = 0;
	for (const shell of shells.values()) if (shell.running) count++;
	return count;
}

function signalShells(entries: readonly [string, ShellRecord][], signal: NodeJS.Signals): void {
	const tags = new Set<string>();
	const roots: number[] = [];
	const groups: number[] = [];
	for (const [tag, shell] of entries) {
		tags.add(tag);
		if (shell.running) roots.push(shell.groupId);
		// An exited shell's pid may belong to an unrelated process by now: its group is reached only
		// where tags are not visible (and its members keep the group id reserved while they live).
		if (shell.running || !tagsVisible) groups.push(shell.groupId);
	}
	// Looked up before any signal: a shell that dies of it hands its children to init at once,
	// and the parent-pid tree would no longer lead to them.
	const { pids } = findProcesses(tags, roots);
	for (const groupId of groups) sendSignal(-groupId, signal);
	signalProcesses(pids, signal);
}

/** Forgets exited shells none of whose processes is left. */
function prune(): void {
	if (tagsVisible) {
		const { liveTags } = findProcesses(new Set(shells.keys()), []);
		for (const [tag, shell] of shells) if (!shell.running && liveTags && !liveTags.has(tag)) shells.delete(tag);
	}
	pruneAt = Math.max(PRUNE_FROM, shells.size * 2);
}
