import type { Stats } from "node:fs";
import { stat } from "node:fs/promises";

/** The `code` of a Node.js system error (ENOENT, EISDIR...), if it has one. */
export function errorCode(error: unknown): string | undefined {
	if (error instanceof Error && "code" in error && typeof error.code === "string") return error.code;
	return undefined;
}

export function errorMessage(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

/**
 * Stats a path a tool must find, turning "does not exist" into the message models know.
 * `displayPath` is the path as the model wrote it, so the message names what it asked for.
 */
export async function statExisting(absolutePath: string, displayPath: string): Promise<Stats> {
	try {
		return await stat(absolutePath);
	} catch (error) {
		const code = errorCode(error);
		if (code === "ENOENT" || code === "ENOTDIR") {
			throw new Error(`File not found: ${displayPath}`, { cause: error });
		}
		throw new Error(`Cannot access ${displayPath}: ${errorMessage(error)}`, { cause: error });
	}
}

/** Tools stop before touching the disk once the run is aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
	if (signal?.aborted) throw new Error("Operation aborted");
}
