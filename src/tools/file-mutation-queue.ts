/** The last queued mutation per absolute path; settled promises that never reject. */
const pendingByPath = new Map<string, Promise<void>>();

/**
 * Runs `task` after every earlier mutation of the same file has finished. Tools run in parallel
 * by default, and two edits of one file would otherwise both read the old text and the second
 * write would silently drop the first edit.
 */
export async function withFileMutationQueue<T>(absolutePath: string, task: () => Promise<T>): Promise<T> {
	const previous = pendingByPath.get(absolutePath) ?? Promise.resolve();
	const run = previous.then(task);
	const settled = run.then(
		() => undefined,
		// The failure belongs to this task's caller (it awaits `run`); the queue only needs to move on.
		() => undefined,
	);
	pendingByPath.set(absolutePath, settled);
	try {
		return await run;
	} finally {
		if (pendingByPath.get(absolutePath) === settled) pendingByPath.delete(absolutePath);
	}
}
