import { statSync } from "node:fs";
import { basename } from "node:path";
import picomatch from "picomatch";
import { resolveToolPath } from "../paths.js";
import { wholeNumber } from "../search-support.js";
import { type FileScan, FileScanner, type ScanPattern } from "./file-scan.js";
import { GrepOutput } from "./grep-output.js";
import { requiredLiteral } from "./required-literal.js";
import { walkTree } from "./walker.js";

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
	/** grep: binary files whose unshown part matched (their paths, at most a few). */
	binaryMatches?: string[];
	/** grep: how many binary files matched in all. */
	binaryMatchCount?: number;
	/** grep: a line longer than the scan's maximum was searched in its first part only. */
	longLines?: boolean;
}

/** Binary files named in a summary; the rest are counted. */
const NAMED_BINARY_FILES = 5;

/**
 * Runs a search, handing output lines to `emit` as they are known (each file's lines at once), so
 * that whoever stops the search early keeps what was found. Throws for a missing path, an invalid
 * pattern or glob. Synchronous: it runs in a search worker.
 */
export function runSearchJob(job: SearchJob, emit: (lines: string[]) => void): SearchSummary {
	return job.kind === "grep"
		? grepJob(job.cwd, job.args, job.defaultLimit, emit)
		: findJob(job.cwd, job.args, job.defaultLimit, emit);
}

function grepJob(
	cwd: string,
	args: GrepJobArguments,
	defaultLimit: number,
	emit: (lines: string[]) => void,
): SearchSummary {
	const pattern = scanPattern(args);
	const limit = wholeNumber(args.limit, defaultLimit, 1);
	const context = wholeNumber(args.context, 0, 0);
	const searchPath = resolveToolPath(args.path ?? ".", cwd);
	const info = statPath(searchPath);
	let pending: string[] = [];
	const output = new GrepOutput(limit, context, (line) => pending.push(line));
	const scanner = new FileScanner(pattern, { context, maxMatches: limit + 1 });
	const take = (displayPath: string, scan: FileScan) => {
		output.add(displayPath, scan);
		if (pending.length > 0) {
			emit(pending);
			pending = [];
		}
	};
	if (info.isDirectory()) {
		const matchesGlob = args.glob ? compileGlob(args.glob) : undefined;
		walkTree(searchPath, {}, (entry) => {
			if (matchesGlob && !matchesGlob(entry.path)) return true;
			const scan = scanFile(scanner, entry.absolutePath);
			if (scan) take(entry.path, scan);
			return !output.done;
		});
	} else if (info.isFile()) {
		const scan = scanner.scan(searchPath);
		take(basename(searchPath), scan);
	} else throw new Error(`Not a file or directory: ${searchPath}`);
	const summary: SearchSummary = { limitReached: output.matchLimitReached, linesTruncated: output.linesTruncated };
	if (output.binaryMatches.length > 0) {
		summary.binaryMatches = output.binaryMatches.slice(0, NAMED_BINARY_FILES);
		summary.binaryMatchCount = output.binaryMatches.length;
	}
	if (output.longLines) summary.longLines = true;
	return summary;
}

/** A file found by the walk; one that vanished or cannot be read is skipped, as ripgrep does. */
function scanFile(scanner: FileScanner, absolutePath: string): FileScan | undefined {
	try {
		return scanner.scan(absolutePath);
	} catch (error) {
		if (error instanceof Error && "code" in error) return undefined;
		throw error;
	}
}

function findJob(
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

/** The regex and the text every match holds (searched for first), from grep's arguments. */
export function scanPattern(args: Pick<GrepJobArguments, "pattern" | "ignoreCase" | "literal">): ScanPattern {
	const regex = compileRegex(args.pattern, args.ignoreCase === true, args.literal === true);
	const literal = args.literal === true ? args.pattern : requiredLiteral(regex.source);
	if (literal === undefined || literal === "") return { regex };
	if (!regex.flags.includes("i")) return { regex, needle: Buffer.from(literal, "utf8").toString("latin1") };
	// Case-insensitively only for ASCII text: its bytes are its characters in any encoding.
	if (/^[\x20-\x7e]*$/.test(literal)) return { regex, needleRegex: new RegExp(escapeRegex(literal), "gi") };
	return { regex };
}

function escapeRegex(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/**
 * Builds the search regex. A leading `(?i)`, ripgrep's inline flag that models often write, is
 * turned into the `i` flag since JavaScript has no equivalent.
 */
export function compileRegex(pattern: string, ignoreCase: boolean, literal: boolean): RegExp {
	let source = literal ? escapeRegex(pattern) : pattern;
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

/**
 * Compiles a glob for root-relative POSIX paths. Like ripgrep's and fd's globs, a pattern without
 * `/` matches the base name at any depth (`*.ts`); one with `/` matches the whole relative path.
 * Hidden files match like any other.
 */
export function compileGlob(pattern: string): (path: string) => boolean {
	const normalized = pattern.startsWith("./") ? pattern.slice(2) : pattern;
	let matcher: (path: string) => boolean;
	try {
		matcher = picomatch(normalized, { dot: true, windows: false });
	} catch (error) {
		const reason = error instanceof Error ? error.message : String(error);
		throw new Error(`Invalid glob pattern "${pattern}": ${reason}`, { cause: error });
	}
	if (normalized.includes("/")) return matcher;
	return (path) => matcher(path.slice(path.lastIndexOf("/") + 1));
}

/** Stats a path a tool was given; a missing one fails with "Path not found: <path>". */
function statPath(path: string) {
	try {
		const info = statSync(path, { throwIfNoEntry: false });
		if (info) return info;
	} catch (error) {
		if (!(error instanceof Error && "code" in error && error.code === "ENOTDIR")) throw error;
	}
	throw new Error(`Path not found: ${path}`);
}
