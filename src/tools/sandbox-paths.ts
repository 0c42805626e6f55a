import { resolveToolPath } from "./paths.js";
import type { ToolOptions } from "./types.js";

/** Throws (words for the model) when the session's sandbox hides `absolutePath`. */
export function checkToolRead(options: ToolOptions, absolutePath: string): void {
	options.sandbox?.checkRead(options.cwd, absolutePath);
}

/** Throws (words for the model) when the session's sandbox does not let the tools write `absolutePath`. */
export function checkToolWrite(options: ToolOptions, absolutePath: string): void {
	options.sandbox?.checkWrite(options.cwd, absolutePath);
}

/**
 * For grep and find: throws when the sandbox hides the searched path itself, else returns the
 * paths the search must leave out (undefined when the sandbox is off).
 */
export function sandboxedSearch(options: ToolOptions, path: string | undefined): string[] | undefined {
	if (!options.sandbox) return undefined;
	checkToolRead(options, resolveToolPath(path ?? ".", options.cwd));
	const hidden = options.sandbox.hiddenPaths(options.cwd);
	return hidden.length > 0 ? [...hidden] : undefined;
}
