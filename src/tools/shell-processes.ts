import { descendantsOf, findProcesses, findProcessesAsync, sendSignal, signalProcesses } from "./process-tree.js";

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

type ShellEntry = [tag: string, shell: ShellRecord];

/** Every shell started whose processes may still live on, by tag. */
const shells = new Map<string, ShellRecord>();
let pruneAt = PRUNE_FROM;
let pruning = false;
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
 * Ends every process of one command: its process group, its shell's descendants, every process
 * carrying its tag (those that called setsid included) and their descendants. SIGTERM now,
 * SIGKILL after KILL_GRACE_MS to whatever is left (looked up again, so that children forked
 * meanwhile are found too). The group and the shell's descendants are signalled at once; the
 * processes found only by their tag follow a scan of /proc that does not block the event loop.
 */
export function stopShellProcesses(tag: string): void {
	const shell = shells.get(tag);
	if (!shell) return;
	const entries: ShellEntry[] = [[tag, shell]];
	signalNow(entries, "SIGTERM");
	signalTagged(entries, "SIGTERM");
	// Unreferenced: at exit the exit hook kills what is left anyway.
	setTimeout(() => {
		signalNow(entries, "SIGKILL");
		signalTagged(entries, "SIGKILL");
	}, KILL_GRACE_MS).unref();
}

/** Kills (SIGKILL) every process any shell of this process started, at once (for shutdown). */
export function killAllShells(): void {
	// No command ever ran: nothing to look for (a scan reads two files per process on the machine).
	if (shells.size === 0) return;
	const entries = [...shells];
	// Looked up before any signal: a shell that dies of it hands its children to init at once,
	// and the parent-pid tree would no longer lead to them.
	const { pids } = findProcesses(new Set(shells.keys()), runningRoots(entries));
	signalGroups(entries, "SIGKILL");
	signalProcesses(pids, "SIGKILL");
}

/** How many shells are still running (for tests). */
export function liveShellCount(): number {
	let count = 0;
	for (const shell of shells.values()) if (shell.running) count++;
	return count;
}

function runningRoots(entries: readonly ShellEntry[]): number[] {
	return entries.flatMap(([, shell]) => (shell.running ? [shell.groupId] : []));
}

/** The groups, and the descendants of the shells still running (read first: see killAllShells). */
function signalNow(entries: readonly ShellEntry[], signal: NodeJS.Signals): void {
	const descendants = descendantsOf(runningRoots(entries));
	signalGroups(entries, signal);
	signalProcesses(descendants, signal);
}

function signalGroups(entries: readonly ShellEntry[], signal: NodeJS.Signals): void {
	for (const [, shell] of entries) {
		// An exited shell's pid may belong to an unrelated process by now: its group is reached only
		// where tags are not visible (and its members keep the group id reserved while they live).
		if (shell.running || !tagsVisible) sendSignal(-shell.groupId, signal);
	}
}

/** Every process carrying the entries' tags, and their descendants, after a non-blocking scan. */
function signalTagged(entries: readonly ShellEntry[], signal: NodeJS.Signals): void {
	if (!tagsVisible) return;
	findProcessesAsync(new Set(entries.map(([tag]) => tag)), []).then(
		({ pids }) => signalProcesses(pids, signal),
		(error: unknown) => reportScanFailure(error),
	);
}

/** Forgets exited shells none of whose processes is left (in the background). */
function prune(): void {
	pruneAt = Math.max(PRUNE_FROM, shells.size * 2);
	if (!tagsVisible || pruning) return;
	pruning = true;
	// Only shells that had exited before the scan: their processes cannot appear during it.
	const exited = [...shells].filter(([, shell]) => !shell.running).map(([tag]) => tag);
	findProcessesAsync(new Set(exited), [])
		.then(({ liveTags }) => {
			for (const tag of exited) if (liveTags && !liveTags.has(tag)) shells.delete(tag);
		}, reportScanFailure)
		.finally(() => {
			pruning = false;
		});
}

function reportScanFailure(error: unknown): void {
	const reason = error instanceof Error ? error.message : String(error);
	process.emitWarning(`Could not look up the processes of a command: ${reason}`, "AtomicShellWarning");
}
