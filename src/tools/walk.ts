import type { Dirent } from "node:fs";
import { join } from "node:path";
import { fsPromises } from "../platform/lazy-builtins.js";
import { IgnoreRules } from "./ignore-rules.js";
import { isFileSystemError } from "./search-support.js";

export interface WalkEntry {
	/** Path relative to the walk root, with `/` separators. */
	path: string;
	absolutePath: string;
	isDirectory: boolean;
}

export interface WalkOptions {
	/** Also yield directories (before their contents). Default false: files only. */
	includeDirectories?: boolean;
	/** Stops the walk: the iterator then throws the signal's reason. */
	signal?: AbortSignal;
}

/** Orders names case-insensitively, ties broken by code unit so the order is total. */
export function compareNames(left: string, right: string): number {
	const a = left.toLowerCase();
	const b = right.toLowerCase();
	if (a !== b) return a < b ? -1 : 1;
	return left < right ? -1 : left === right ? 0 : 1;
}

interface Frame {
	absolutePath: string;
	/** Root-relative path of the directory, "" for the root. */
	path: string;
	entries: Dirent[];
	next: number;
	rules: IgnoreRules;
}

/**
 * Walks the tree under `root` depth first, in `compareNames` order per directory, so a directory's
 * contents follow it directly. Skips `.git` and whatever `.gitignore`/`.ignore` files (in the root,
 * below it, and above it up to the repository top) exclude; hidden files are included. Symlinks to
 * files are yielded as files; symlinked directories are neither yielded nor entered, which rules out
 * loops. Entries that are neither files nor directories (sockets, FIFOs) are skipped. Unreadable
 * directories below the root are skipped; an unreadable root throws.
 */
export async function* walk(root: string, options: WalkOptions = {}): AsyncGenerator<WalkEntry> {
	const { signal, includeDirectories = false } = options;
	signal?.throwIfAborted();
	const stack: Frame[] = [];
	const rootFrame = await openDirectory(root, "", await IgnoreRules.above(root), true);
	if (rootFrame) stack.push(rootFrame);
	while (stack.length > 0) {
		signal?.throwIfAborted();
		const frame = stack[stack.length - 1] as Frame;
		const entry = frame.entries[frame.next++];
		if (!entry) {
			stack.pop();
			continue;
		}
		if (entry.name === ".git") continue;
		const absolutePath = join(frame.absolutePath, entry.name);
		const path = frame.path === "" ? entry.name : `${frame.path}/${entry.name}`;
		const kind = entry.isSymbolicLink() ? await linkKind(absolutePath) : entryKind(entry);
		if (kind === undefined || frame.rules.isIgnored(path, kind === "directory")) continue;
		if (kind === "file") {
			yield { path, absolutePath, isDirectory: false };
			continue;
		}
		if (includeDirectories) yield { path, absolutePath, isDirectory: true };
		const child = await openDirectory(absolutePath, path, frame.rules, false);
		if (child) stack.push(child);
	}
}

async function openDirectory(
	absolutePath: string,
	path: string,
	inherited: IgnoreRules,
	isRoot: boolean,
): Promise<Frame | undefined> {
	let entries: Dirent[];
	try {
		entries = await fsPromises().readdir(absolutePath, { withFileTypes: true });
	} catch (error) {
		if (isRoot || !isFileSystemError(error)) throw error;
		// A directory that vanished or cannot be read is left out, as `find` and ripgrep do.
		return undefined;
	}
	entries.sort((left, right) => compareNames(left.name, right.name));
	const fileNames = new Set(entries.filter((entry) => entry.isFile()).map((entry) => entry.name));
	const rules = await inherited.enter(absolutePath, path, fileNames);
	return { absolutePath, path, entries, next: 0, rules };
}

type EntryKind = "file" | "directory" | undefined;

/** "file" or "directory"; undefined for what the walk skips (sockets, FIFOs, devices). */
function entryKind(entry: Dirent): EntryKind {
	if (entry.isFile()) return "file";
	return entry.isDirectory() ? "directory" : undefined;
}

/** A symlink counts as a file when it points at one; links to directories are not followed. */
async function linkKind(absolutePath: string): Promise<EntryKind> {
	const target = await fsPromises()
		.stat(absolutePath)
		.catch((error: unknown) => {
			// A broken or unreadable link has no target to search.
			if (isFileSystemError(error)) return undefined;
			throw error;
		});
	return target?.isFile() ? "file" : undefined;
}
