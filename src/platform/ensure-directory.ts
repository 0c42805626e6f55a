import { mkdirSync, type Stats, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { errorCode, errorMessage } from "./errors.js";
import { describeFileKind } from "./file-kind.js";
import { fsPromises } from "./lazy-builtins.js";

export interface EnsureDirectoryOptions {
	/** Mode of the directories created (default 0o777, less the umask). */
	mode?: number;
}

/** A directory that could not be created; `cause` is the file-system error when there was one. */
export class DirectoryCreationError extends Error {
	constructor(message: string, options?: { cause?: unknown }) {
		super(message, options);
		this.name = "DirectoryCreationError";
	}
}

/** Missing levels (deepest first) until an existing ancestor; ENOTDIR below a file counts as missing. */
function isAbsent(error: unknown): boolean {
	const code = errorCode(error);
	return code === "ENOENT" || code === "ENOTDIR";
}

function notADirectory(target: string, ancestor: string, stats: Stats): DirectoryCreationError {
	const where = ancestor === target ? "it" : ancestor;
	return new DirectoryCreationError(
		`Cannot create directory ${target}: ${where} is ${describeFileKind(stats)}, not a directory`,
	);
}

function creationFailed(level: string, error: unknown): DirectoryCreationError {
	return new DirectoryCreationError(`Cannot create directory ${level}: ${errorMessage(error)}`, { cause: error });
}

/**
 * One step up from `current` towards the nearest existing ancestor: undefined once `current`
 * exists (it must be a directory), else its parent, with `current` added to the levels to create.
 */
function climb(target: string, current: string, stats: Stats | undefined, missing: string[]): string | undefined {
	if (stats) {
		if (!stats.isDirectory()) throw notADirectory(target, current, stats);
		return undefined;
	}
	missing.push(current);
	const parent = dirname(current);
	if (parent === current) throw new DirectoryCreationError(`Cannot create directory ${target}: no root`);
	return parent;
}

/**
 * Makes sure `path` is a directory, creating the missing levels. Unlike `mkdir -p` as Node 20
 * implements it (which loops for ever on paths such as `/proc/<gone pid>/x`), this walks up once
 * to the nearest existing ancestor, checks that it is a directory, and creates each missing level
 * exactly once: every path ends in a result or a `DirectoryCreationError`.
 */
export async function ensureDirectory(path: string, options: EnsureDirectoryOptions = {}): Promise<void> {
	const target = resolve(path);
	const missing: string[] = [];
	for (let current = target; ; ) {
		const stats = await fsPromises()
			.stat(current)
			.catch((error: unknown) => {
				if (isAbsent(error)) return undefined;
				throw creationFailed(target, error);
			});
		const parent = climb(target, current, stats, missing);
		if (parent === undefined) break;
		current = parent;
	}
	for (const level of missing.reverse()) {
		try {
			await fsPromises().mkdir(level, { mode: options.mode });
		} catch (error) {
			// Created meanwhile by someone else: fine when it is a directory.
			if (
				errorCode(error) === "EEXIST" &&
				(
					await fsPromises()
						.stat(level)
						.catch(() => undefined)
				)?.isDirectory()
			)
				continue;
			throw creationFailed(level, error);
		}
	}
}

/** `ensureDirectory` for synchronous callers (the session store, spill files, settings). */
export function ensureDirectorySync(path: string, options: EnsureDirectoryOptions = {}): void {
	const target = resolve(path);
	const missing: string[] = [];
	for (let current = target; ; ) {
		let stats: Stats | undefined;
		try {
			stats = statSync(current);
		} catch (error) {
			if (!isAbsent(error)) throw creationFailed(target, error);
		}
		const parent = climb(target, current, stats, missing);
		if (parent === undefined) break;
		current = parent;
	}
	for (const level of missing.reverse()) {
		try {
			mkdirSync(level, { mode: options.mode });
		} catch (error) {
			if (errorCode(error) === "EEXIST" && statSync(level, { throwIfNoEntry: false })?.isDirectory()) continue;
			throw creationFailed(level, error);
		}
	}
}
