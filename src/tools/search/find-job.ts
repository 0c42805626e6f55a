import { resolveToolPath } from "../paths.js";
import { wholeNumber } from "../search-support.js";
import { DEFAULT_MAX_BYTES } from "../truncate.js";
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
	let bytes = 0;
	const foldersCut: string[] = [];
	const onFolderCut = (path: string) => foldersCut.push(path);
	const unreadable: string[] = [];
	const onUnreadable = (path: string, code: string) => unreadable.push(`${path} (${code})`);
	const hidden = new Set(args.hidden);
	walkTree(root, { includeDirectories: true, onFolderCut, onUnreadable, hidden }, (entry) => {
		if (directoriesOnly && !entry.isDirectory) return true;
		if (!matches(entry.path)) return true;
		if (count >= limit) {
			limitReached = true;
			return false;
		}
		count++;
		const line = entry.isDirectory ? `${entry.path}/` : entry.path;
		batch.push(line);
		if (batch.length >= 256) {
			emit(batch);
			batch = [];
		}
		// Past the bytes a result shows (it is cut there and says so), more would only be dropped.
		bytes += Buffer.byteLength(line) + 1;
		return bytes <= DEFAULT_MAX_BYTES;
	});
	if (batch.length > 0) emit(batch);
	const summary: SearchSummary = { limitReached, linesTruncated: false };
	if (foldersCut.length > 0) summary.foldersCut = foldersCut.slice(0, 5);
	if (unreadable.length > 0) {
		summary.unreadable = unreadable.slice(0, 5);
		summary.unreadableCount = unreadable.length;
	}
	return summary;
}
