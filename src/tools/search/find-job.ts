import { resolveToolPath } from "../paths.js";
import { wholeNumber } from "../search-support.js";
import { compileGlob, statPath } from "./patterns.js";
import type { FindJobArguments, SearchSummary } from "./types.js";
import { walkTree } from "./walker.js";

/** find over a tree: the paths the glob matches, in walk order, up to the limit. */
export function findJob(
	cwd: string,
	args: FindJobArguments,
	defaultLimit: number,
	emit: (lines: string[]) => void,
): SearchSummary {
	const limit = wholeNumber(args.limit, defaultLimit, 1);
	const root = resolveToolPath(args.path ?? ".", cwd);
	if (!statPath(root).isDirectory()) throw new Error(`Not a directory: ${root}`);
	// A trailing slash asks for directories only, as in gitignore patterns.
	const directoriesOnly = args.pattern.length > 1 && args.pattern.endsWith("/");
	const matches = compileGlob(directoriesOnly ? args.pattern.slice(0, -1) : args.pattern);
	// The walk visits paths in sorted order, so the first `limit` matches are the first sorted ones.
	let count = 0;
	let limitReached = false;
	let batch: string[] = [];
	walkTree(root, { includeDirectories: true }, (entry) => {
		if (directoriesOnly && !entry.isDirectory) return true;
		if (!matches(entry.path)) return true;
		if (count >= limit) {
			limitReached = true;
			return false;
		}
		count++;
		batch.push(entry.isDirectory ? `${entry.path}/` : entry.path);
		if (batch.length >= 256) {
			emit(batch);
			batch = [];
		}
		return true;
	});
	if (batch.length > 0) emit(batch);
	return { limitReached, linesTruncated: false };
}
