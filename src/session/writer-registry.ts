import { resolve } from "node:path";

/** Absolute paths of the session files a writer of this process holds. */
const heldPaths = new Set<string>();

export class SessionFileBusyError extends Error {
	constructor(readonly path: string) {
		super(`Session file is already open for writing in this process: ${path} (close the other session first)`);
		this.name = "SessionFileBusyError";
	}
}

/**
 * Claims a session file for one writer. Two writers appending to the same file would interleave
 * parent ids and leaves, so a second claim is refused rather than shared.
 */
export function claimSessionFile(path: string): string {
	const absolute = resolve(path);
	if (heldPaths.has(absolute)) throw new SessionFileBusyError(absolute);
	heldPaths.add(absolute);
	return absolute;
}

export function releaseSessionFile(path: string): void {
	heldPaths.delete(resolve(path));
}

export function isSessionFileClaimed(path: string): boolean {
	return heldPaths.has(resolve(path));
}
