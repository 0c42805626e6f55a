import { chmodSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import type { AgentMessage } from "../agent/messages.js";
import { fsPromises } from "../platform/lazy-builtins.js";
import { isFileSystemError } from "./search-support.js";

/** All the full-output files of one process together stop growing at this size. */
export const SPILL_BUDGET_BYTES = 256 * 1024 * 1024;
/** Kept files (a session refers to them) of processes that ended are removed after this long. */
export const KEPT_SPILL_MS = 7 * 24 * 3600 * 1000;
/** Files in the name format without a pid (older versions) are removed after this long. */
const LEGACY_SPILL_MS = 24 * 3600 * 1000;

const OWN_NAME = /^atomic-bash-(\d+)-[0-9a-f]{16}\.log$/;
const LEGACY_NAME = /^atomic-bash-[0-9a-f]{16}\.log$/;
/** Read-only marks a file a session refers to: it outlives this process (see keepSpillFilesOf). */
const KEPT_MODE = 0o400;

interface Tracked {
	path: string;
	bytes: number;
	open: boolean;
	kept: boolean;
}

/** This process's files, oldest first. */
const files: Tracked[] = [];
let totalBytes = 0;
let budgetBytes = SPILL_BUDGET_BYTES;
const sweptDirectories = new Set<string>();
let exitHookInstalled = false;

/** The name of a new full-output file: it carries this process's pid, for the clean-up of stale files. */
export function spillFileName(random: string): string {
	return `atomic-bash-${process.pid}-${random}.log`;
}

/**
 * Starts tracking a new file of this process. The first one also starts, in the background, the
 * removal of stale files other processes left in `directory`, and installs the exit hook.
 */
export function trackSpillFile(path: string, directory: string): Tracked {
	const tracked: Tracked = { path, bytes: 0, open: true, kept: false };
	files.push(tracked);
	if (!exitHookInstalled) {
		exitHookInstalled = true;
		process.once("exit", removeUnkeptSpillFiles);
	}
	if (!sweptDirectories.has(directory)) {
		sweptDirectories.add(directory);
		sweepStaleSpillFiles(directory).catch((error: unknown) => reportCleanupFailure(directory, error));
	}
	return tracked;
}

/**
 * How many of `bytes` may be written to `tracked` within the budget. The oldest closed files are
 * removed first to make room; only when the open ones alone fill it is less than asked allowed.
 */
export function reserveSpillBytes(tracked: Tracked, bytes: number): number {
	while (totalBytes + bytes > budgetBytes) {
		const oldest = files.find((file) => !file.open);
		if (!oldest) break;
		forget(oldest);
		removeQuietly(oldest.path);
	}
	const allowed = Math.max(0, Math.min(bytes, budgetBytes - totalBytes));
	tracked.bytes += allowed;
	totalBytes += allowed;
	return allowed;
}

/** The size all files of this process may take together; default SPILL_BUDGET_BYTES. */
export function spillBudget(): number {
	return budgetBytes;
}

/** Changes the budget (an embedder with a small disk, tests); files already written stay. */
export function setSpillBudget(bytes: number): void {
	budgetBytes = Math.max(0, bytes);
}

export function spillFileClosed(tracked: Tracked): void {
	tracked.open = false;
}

/** A file that could not be written: it is removed at once. */
export function spillFileFailed(tracked: Tracked): void {
	forget(tracked);
	removeQuietly(tracked.path);
}

/**
 * Keeps the full-output files `message` refers to (a bash tool result, a bash execution) past this
 * process's exit: the runtime calls it when it records the message in a session file. Only files
 * this process made are affected; they become read-only, which is how a later clean-up knows them.
 */
export function keepSpillFilesOf(message: AgentMessage): void {
	const path = referencedPath(message);
	const tracked = path === undefined ? undefined : files.find((file) => file.path === path);
	if (!tracked || tracked.kept) return;
	tracked.kept = true;
	try {
		chmodSync(tracked.path, KEPT_MODE);
	} catch (error) {
		// Gone already (evicted, removed by hand): nothing to keep.
		if (!isFileSystemError(error)) throw error;
	}
}

/** The files of this process and their total size (for tests). */
export function spillFileUsage(): { paths: string[]; totalBytes: number } {
	return { paths: files.map((file) => file.path), totalBytes };
}

function referencedPath(message: AgentMessage): string | undefined {
	if (message.role === "bashExecution") return message.fullOutputPath;
	if (message.role !== "toolResult") return undefined;
	const details: unknown = message.details;
	if (typeof details !== "object" || details === null || !("fullOutputPath" in details)) return undefined;
	return typeof details.fullOutputPath === "string" ? details.fullOutputPath : undefined;
}

function forget(tracked: Tracked): void {
	const index = files.indexOf(tracked);
	if (index >= 0) files.splice(index, 1);
	totalBytes -= tracked.bytes;
}

/** At exit: the files no session refers to go. */
function removeUnkeptSpillFiles(): void {
	for (const file of files) if (!file.kept) removeQuietly(file.path);
}

/**
 * Removes what ended processes left in `directory`: their files no session referred to (a crash or
 * kill -9 skipped their exit clean-up), and kept files older than KEPT_SPILL_MS.
 */
async function sweepStaleSpillFiles(directory: string): Promise<void> {
	const now = Date.now();
	for (const name of await fsPromises().readdir(directory)) {
		const own = OWN_NAME.exec(name);
		const legacy = !own && LEGACY_NAME.test(name);
		if (!own && !legacy) continue;
		const pid = own ? Number(own[1]) : undefined;
		if (pid !== undefined && (pid === process.pid || processAlive(pid))) continue;
		const path = join(directory, name);
		const info = await fsPromises()
			.stat(path)
			.catch((error: unknown) => {
				if (isFileSystemError(error)) return undefined;
				throw error;
			});
		if (!info) continue;
		const age = now - info.mtimeMs;
		const kept = (info.mode & 0o200) === 0;
		const stale = legacy ? age > LEGACY_SPILL_MS : !kept || age > KEPT_SPILL_MS;
		if (!stale) continue;
		await fsPromises()
			.unlink(path)
			.catch((error: unknown) => {
				// Removed meanwhile, or another user's file in a shared directory.
				if (!isFileSystemError(error)) throw error;
			});
	}
}

function processAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		// EPERM: it exists but belongs to another user.
		return isFileSystemError(error) && error.code === "EPERM";
	}
}

function removeQuietly(path: string): void {
	try {
		unlinkSync(path);
	} catch (error) {
		if (!isFileSystemError(error)) throw error;
		if (error.code !== "ENOENT") reportCleanupFailure(path, error);
	}
}

function reportCleanupFailure(path: string, error: unknown): void {
	const reason = error instanceof Error ? error.message : String(error);
	process.emitWarning(`Could not clean up saved command output in ${path}: ${reason}`, "AtomicShellWarning");
}
