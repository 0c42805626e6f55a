/**
 * Process ids of the stdio servers still running (each leads its own process group), killed with
 * their groups when Atomic exits before it closed them, however it exits.
 */
const running = new Set<number>();
let hooked = false;

function killRemaining(): void {
	for (const pid of running) {
		try {
			process.kill(-pid, "SIGKILL");
		} catch (error) {
			// ESRCH: it is gone already, which is what we want.
			if (!(error instanceof Error && "code" in error && error.code === "ESRCH"))
				process.stderr.write(`Could not end MCP server process ${pid}: ${String(error)}\n`);
		}
	}
	running.clear();
}

/** Remembers a server process: if Atomic exits before it was closed, it is killed on the way out. */
export function trackServerProcess(pid: number): void {
	if (!hooked) {
		hooked = true;
		process.on("exit", killRemaining);
	}
	running.add(pid);
}

export function untrackServerProcess(pid: number): void {
	running.delete(pid);
}
