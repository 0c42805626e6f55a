import { type Dirent, opendirSync, statSync } from "node:fs";
import { IgnoreStack } from "./ignore-stack.js";

export interface WalkEntry {
	/** Path relative to the walk root, with `/` separators. */
	path: string;
	absolutePath: string;
	isDirectory: boolean;
}

export interface WalkOptions {
	/** Also visit folders (before their contents). Default false: files only. */
	includeDirectories?: boolean;
	/** Told of a folder with more than `maxFolderEntries` entries: only that many were walked. */
	onFolderCut?(path: string): void;
	/** Default MAX_FOLDER_ENTRIES. */
	maxFolderEntries?: number;
	/** Told of a folder below the root that cannot be read (it is skipped), with the error code. */
	onUnreadable?(path: string, code: string): void;
	/** Absolute paths left out with everything below them (what the sandbox hides). */
	hidden?: ReadonlySet<string>;
}

/**
 * Entries read of one folder. A folder with more (a million files in one place) is walked in its
 * first this many, in listing order, so that memory stays bounded; the search says so.
 */
export const MAX_FOLDER_ENTRIES = 200_000;

/** Orders names case-insensitively, ties broken by code unit so the order is total. */
export function compareNames(left: string, right: string): number {
	const a = left.toLowerCase();
	const b = right.toLowerCase();
	if (a !== b) return a < b ? -1 : 1;
	return left < right ? -1 : left === right ? 0 : 1;
}

const byName = (left: Dirent, right: Dirent) => compareNames(left.name, right.name);

interface Frame {
	absolutePath: string;
	/** Root-relative path of the folder, "" for the root. */
	path: string;
	entries: Dirent[];
	next: number;
	rules: IgnoreStack;
}

/**
 * Walks the tree under `root` depth first, in `compareNames` order per folder, so a folder's contents
 * follow it directly; `visit` returns false to stop. It skips `.git` and what the ignore files
 * exclude (ignore-stack.ts); hidden files are included. A symlink to a file is a file; symlinked
 * folders are neither visited nor entered, which rules out loops. Entries that are neither files nor
 * folders (sockets, FIFOs) are skipped, and so are folders below the root that cannot be read; an
 * unreadable root throws. Synchronous: it runs in a search worker, where blocking costs nothing and
 * each folder read is a plain system call.
 */
export function walkTree(root: string, options: WalkOptions, visit: (entry: WalkEntry) => boolean): void {
	const includeDirectories = options.includeDirectories === true;
	const hidden = options.hidden !== undefined && options.hidden.size > 0 ? options.hidden : undefined;
	const stack: Frame[] = [];
	const onCut = options.onFolderCut ?? (() => undefined);
	const cut = { most: options.maxFolderEntries ?? MAX_FOLDER_ENTRIES, onCut, onUnreadable: options.onUnreadable };
	const rootFrame = openFolder(root, "", IgnoreStack.forRoot(root), true, cut);
	if (rootFrame) stack.push(rootFrame);
	while (stack.length > 0) {
		const frame = stack[stack.length - 1] as Frame;
		const entry = frame.entries[frame.next++];
		if (!entry) {
			stack.pop();
			continue;
		}
		const name = entry.name;
		if (name === ".git") continue;
		const absolutePath = `${frame.absolutePath}/${name}`;
		if (hidden?.has(absolutePath)) continue;
		const kind = entry.isFile()
			? FILE
			: entry.isDirectory()
				? FOLDER
				: entry.isSymbolicLink()
					? linkKind(absolutePath)
					: 0;
		if (kind === 0) continue;
		const path = frame.path === "" ? name : `${frame.path}/${name}`;
		const isDirectory = kind === FOLDER;
		if (frame.rules.isIgnored(path, name, isDirectory)) continue;
		if (!isDirectory) {
			if (!visit({ path, absolutePath, isDirectory: false })) return;
			continue;
		}
		if (includeDirectories && !visit({ path, absolutePath, isDirectory: true })) return;
		const child = openFolder(absolutePath, path, frame.rules, false, cut);
		if (child) stack.push(child);
	}
}

interface FolderCut {
	most: number;
	onCut(path: string): void;
	onUnreadable?(path: string, code: string): void;
}

const FILE = 1;
const FOLDER = 2;

function openFolder(
	absolutePath: string,
	path: string,
	inherited: IgnoreStack,
	isRoot: boolean,
	cut: FolderCut,
): Frame | undefined {
	let entries: Dirent[];
	try {
		entries = readFolder(absolutePath, path, cut);
	} catch (error) {
		if (isRoot || !(error instanceof Error && "code" in error && typeof error.code === "string")) throw error;
		// A folder that vanished is left out; one that cannot be read too, and said, as ripgrep does.
		if (error.code !== "ENOENT") cut.onUnreadable?.(path, error.code);
		return undefined;
	}
	entries.sort(byName);
	let ignore = false;
	let gitignore = false;
	let git = false;
	for (const entry of entries) {
		const name = entry.name;
		if (name === ".ignore") ignore = entry.isFile();
		else if (name === ".gitignore") gitignore = entry.isFile();
		else if (name === ".git") git = true;
	}
	const rules =
		ignore || gitignore || (git && !inherited.inRepository)
			? inherited.enter(absolutePath, path, { ignore, gitignore, git })
			: inherited;
	// The root without a trailing slash ("" for "/"): children are `${folder}/${name}`.
	return { absolutePath: isRoot ? absolutePath.replace(/\/+$/, "") : absolutePath, path, entries, next: 0, rules };
}

/** A folder's entries, at most `cut.most` of them (read in batches, never all at once). */
function readFolder(absolutePath: string, path: string, cut: FolderCut): Dirent[] {
	const folder = opendirSync(absolutePath, { bufferSize: 256 });
	const entries: Dirent[] = [];
	try {
		for (let entry = folder.readSync(); entry !== null; entry = folder.readSync()) {
			if (entries.length >= cut.most) {
				cut.onCut(path === "" ? "." : path);
				break;
			}
			entries.push(entry);
		}
	} finally {
		folder.closeSync();
	}
	return entries;
}

/** A symlink is visited as a file when it points at one; links to folders are not followed. */
function linkKind(absolutePath: string): number {
	try {
		return statSync(absolutePath, { throwIfNoEntry: false })?.isFile() ? FILE : 0;
	} catch (error) {
		// An unreadable link (permissions, a loop) has no target to search.
		if (error instanceof Error && "code" in error) return 0;
		throw error;
	}
}
