import { dirname, join, relative, sep } from "node:path";
import type { Ignore } from "ignore";
import { fsPromises } from "../platform/lazy-builtins.js";
import { readOptionalTextFile } from "../platform/regular-file.js";
import { isFileSystemError } from "./search-support.js";

/** Files whose rules the walk honours. `.ignore` is read last so its rules win, as in ripgrep and fd. */
export const IGNORE_FILE_NAMES: readonly string[] = [".gitignore", ".ignore"];

/** Ignore files larger than this are not read (a real one is a few KB). */
const MAX_IGNORE_FILE_BYTES = 4 * 1024 * 1024;

// Git matches case-insensitively on the file systems that are (by default) case-insensitive.
const IGNORE_CASE = process.platform === "darwin" || process.platform === "win32";

interface IgnoreLayer {
	/** Root-relative directory holding the ignore file; "" for the walk root and the directories above it. */
	scope: string;
	/** For a file above the walk root: the root's path relative to that file's directory, ending in "/". */
	prefix: string;
	rules: Ignore;
}

/**
 * The ignore rules in force for one directory of a walk: one layer per ignore file on the way down.
 * A deeper file overrides a shallower one; within a file the last matching rule wins (git's order).
 */
export class IgnoreRules {
	static readonly none = new IgnoreRules([]);

	private constructor(private readonly layers: readonly IgnoreLayer[]) {}

	/**
	 * The rules inherited by a walk root from the directories above it, up to the enclosing git
	 * repository's top (none outside a repository). A root that those rules ignore was asked for
	 * explicitly, so it is searched without them.
	 */
	static async above(root: string): Promise<IgnoreRules> {
		const top = await findRepositoryTop(root);
		if (top === undefined || top === root) return IgnoreRules.none;
		const layers: IgnoreLayer[] = [];
		for (let directory = dirname(root); ; directory = dirname(directory)) {
			const rules = await readRules(directory, IGNORE_FILE_NAMES);
			if (rules) layers.unshift({ scope: "", prefix: `${toPosix(relative(directory, root))}/`, rules });
			if (directory === top) break;
		}
		const inherited = new IgnoreRules(layers);
		return inherited.rootIgnored() ? IgnoreRules.none : inherited;
	}

	/**
	 * The rules for the entries of `directory` (root-relative `scope`), adding its own ignore files.
	 * `fileNames` are the names of the plain files in it, so that absent ignore files cost no read.
	 */
	async enter(directory: string, scope: string, fileNames: ReadonlySet<string>): Promise<IgnoreRules> {
		const present = IGNORE_FILE_NAMES.filter((name) => fileNames.has(name));
		if (present.length === 0) return this;
		const rules = await readRules(directory, present);
		if (!rules) return this;
		return new IgnoreRules([...this.layers, { scope, prefix: "", rules }]);
	}

	/** Whether a root-relative POSIX path is ignored. Its parent directories are assumed not to be. */
	isIgnored(path: string, isDirectory: boolean): boolean {
		for (let index = this.layers.length - 1; index >= 0; index--) {
			const layer = this.layers[index] as IgnoreLayer;
			const local = layer.prefix + (layer.scope === "" ? path : path.slice(layer.scope.length + 1));
			// A trailing slash lets directory-only rules such as `build/` apply.
			const result = layer.rules.test(isDirectory ? `${local}/` : local);
			if (result.ignored) return true;
			if (result.unignored) return false;
		}
		return false;
	}

	private rootIgnored(): boolean {
		for (let index = this.layers.length - 1; index >= 0; index--) {
			const layer = this.layers[index] as IgnoreLayer;
			const result = layer.rules.test(layer.prefix);
			if (result.ignored) return true;
			if (result.unignored) return false;
		}
		return false;
	}
}

/** The nearest directory at or above `start` holding a `.git` entry, if any. */
async function findRepositoryTop(start: string): Promise<string | undefined> {
	for (let directory = start; ; directory = dirname(directory)) {
		if (await exists(join(directory, ".git"))) return directory;
		if (dirname(directory) === directory) return undefined;
	}
}

async function exists(path: string): Promise<boolean> {
	return fsPromises()
		.access(path)
		.then(
			() => true,
			() => false,
		);
}

/** The rules of the named ignore files in `directory`, or undefined when none could be read. */
async function readRules(directory: string, names: readonly string[]): Promise<Ignore | undefined> {
	let rules: Ignore | undefined;
	for (const name of names) {
		// Only regular files are read: an ignore file that is a FIFO must not hold up the walk.
		const text = await readOptionalTextFile(join(directory, name), { maxBytes: MAX_IGNORE_FILE_BYTES }).catch(
			(error: unknown) => {
				// A missing, unreadable, special or oversized ignore file simply adds no rules.
				if (isFileSystemError(error)) return undefined;
				throw error;
			},
		);
		if (text === undefined) continue;
		// The rules library is loaded with the first ignore file found.
		rules ??= (await import("ignore")).default({ ignorecase: IGNORE_CASE });
		rules.add(text);
	}
	return rules;
}

export function toPosix(path: string): string {
	return sep === "/" ? path : path.split(sep).join("/");
}
