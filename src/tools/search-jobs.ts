import { basename } from "node:path";
import { GrepSearch } from "./grep-search.js";
import { resolveToolPath } from "./paths.js";
import { compileGlob, isFileSystemError, statToolPath, wholeNumber } from "./search-support.js";
import { walk } from "./walk.js";

/** The grep tool's arguments, as the search worker receives them. */
export interface GrepJobArguments {
	pattern: string;
	path?: string;
	glob?: string;
	ignoreCase?: boolean;
	literal?: boolean;
	context?: number;
	limit?: number;
}

/** The find tool's arguments, as the search worker receives them. */
export interface FindJobArguments {
	pattern: string;
	path?: string;
	limit?: number;
}

/** One search, whose cost the model controls (pattern, globs, the tree and its ignore files). */
export type SearchJob =
	| { kind: "grep"; cwd: string; args: GrepJobArguments; defaultLimit: number }
	| { kind: "find"; cwd: string; args: FindJobArguments; defaultLimit: number };

/** What a finished search reports besides its lines. */
export interface SearchSummary {
	/** More results exist than the limit let through. */
	limitReached: boolean;
	/** grep: some lines were cut to the maximum line length. */
	linesTruncated: boolean;
}

/**
 * Runs a search, handing each output line to `emit` as soon as it is known, so that whoever stops
 * the search early keeps what was found. Throws for a missing path, an invalid pattern or glob.
 */
export function runSearchJob(job: SearchJob, emit: (line: string) => void): Promise<SearchSummary> {
	return job.kind === "grep"
		? grepJob(job.cwd, job.args, job.defaultLimit, emit)
		: findJob(job.cwd, job.args, job.defaultLimit, emit);
}

async function grepJob(
	cwd: string,
	args: GrepJobArguments,
	defaultLimit: number,
	emit: (line: string) => void,
): Promise<SearchSummary> {
	const regex = compileRegex(args.pattern, args.ignoreCase === true, args.literal === true);
	const limit = wholeNumber(args.limit, defaultLimit, 1);
	const searchPath = resolveToolPath(args.path ?? ".", cwd);
	const info = await statToolPath(searchPath);
	const search = new GrepSearch({ regex, context: wholeNumber(args.context, 0, 0), limit, onLine: emit });
	if (info.isDirectory()) {
		const matchesGlob = args.glob ? await compileGlob(args.glob) : undefined;
		for await (const entry of walk(searchPath)) {
			if (matchesGlob && !matchesGlob(entry.path)) continue;
			await search.searchFile(entry.absolutePath, entry.path).catch((error: unknown) => {
				// A file that vanished or cannot be read mid-walk is skipped, as ripgrep does.
				if (!isFileSystemError(error)) throw error;
			});
			if (search.done) break;
		}
	} else {
		await search.searchFile(searchPath, basename(searchPath));
	}
	return { limitReached: search.matchLimitReached, linesTruncated: search.linesTruncated };
}

async function findJob(
	cwd: string,
	args: FindJobArguments,
	defaultLimit: number,
	emit: (line: string) => void,
): Promise<SearchSummary> {
	const limit = wholeNumber(args.limit, defaultLimit, 1);
	const root = resolveToolPath(args.path ?? ".", cwd);
	if (!(await statToolPath(root)).isDirectory()) throw new Error(`Not a directory: ${root}`);
	// A trailing slash asks for directories only, as in gitignore patterns.
	const directoriesOnly = args.pattern.length > 1 && args.pattern.endsWith("/");
	const matches = await compileGlob(directoriesOnly ? args.pattern.slice(0, -1) : args.pattern);
	// The walk yields paths in sorted order, so the first `limit` matches are the first sorted ones.
	let count = 0;
	for await (const entry of walk(root, { includeDirectories: true })) {
		if (directoriesOnly && !entry.isDirectory) continue;
		if (!matches(entry.path)) continue;
		if (count >= limit) return { limitReached: true, linesTruncated: false };
		count++;
		emit(entry.isDirectory ? `${entry.path}/` : entry.path);
	}
	return { limitReached: false, linesTruncated: false };
}

/**
 * Builds the search regex. A leading `(?i)`, ripgrep's inline flag that models often write, is
 * turned into the `i` flag since JavaScript has no equivalent.
 */
export function compileRegex(pattern: string, ignoreCase: boolean, literal: boolean): RegExp {
	let source = literal ? pattern.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&") : pattern;
	let flags = ignoreCase ? "i" : "";
	if (!literal && source.startsWith("(?i)")) {
		source = source.slice(4);
		flags = "i";
	}
	try {
		return new RegExp(source, flags);
	} catch (error) {
		// The engine's message repeats the pattern as /.../; keep only its reason.
		const reason = error instanceof Error ? (error.message.split(": ").pop() ?? error.message) : String(error);
		throw new Error(`Invalid regex pattern "${pattern}": ${reason}. Use literal=true to search for the text as is`, {
			cause: error,
		});
	}
}
