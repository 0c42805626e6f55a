import { readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { IgnoreFile } from "./gitignore-pattern.js";

/**
 * Which ignore files a search honours, as ripgrep does: `.ignore` files anywhere, and inside a git
 * repository its `.gitignore` files, `.git/info/exclude` and the user's global excludes file. An
 * entry is decided by the `.ignore` files first (the deepest that has a say), then the
 * `.gitignore` files (the same), then `info/exclude`, then the global file; within one file the
 * last matching line wins. A folder an ignore file excludes is not entered, so what is below it
 * cannot be re-included, as in git.
 */

/** Ignore files larger than this are not read (a real one is a few KB). */
const MAX_IGNORE_FILE_BYTES = 4 * 1024 * 1024;

// Git matches case-insensitively on the file systems that are (by default) case-insensitive.
const IGNORE_CASE = process.platform === "darwin" || process.platform === "win32";

interface Layer {
	/** Root-relative folder of the file; "" for the root and everything above it. */
	scope: string;
	/** Prepended to root-relative paths for files above the root: the root's path from the file's folder, with "/". */
	prefix: string;
	file: IgnoreFile;
}

export class IgnoreStack {
	private constructor(
		/** `.ignore` files, shallowest first. */
		private readonly ignores: readonly Layer[],
		/** `.gitignore` files, shallowest first. */
		private readonly gitignores: readonly Layer[],
		/** `info/exclude`, then the global excludes file. */
		private readonly repository: readonly Layer[],
		/** Whether the folder is inside a git repository (its .gitignore files count). */
		readonly inRepository: boolean,
	) {}

	/**
	 * The rules a search rooted at `root` starts with: those of its repository and of the folders
	 * between the repository's top and the root. A root those rules ignore was asked for
	 * explicitly: it is searched as if none applied above it.
	 */
	static forRoot(root: string): IgnoreStack {
		const top = repositoryTop(root);
		if (top === undefined) return new IgnoreStack([], [], [], false);
		const toRoot = top === root ? "" : `${toPosix(relative(top, root))}/`;
		const repository: Layer[] = [];
		const exclude = readIgnoreFile(join(commonGitDir(top), "info", "exclude"));
		if (exclude) repository.push({ scope: "", prefix: toRoot, file: exclude });
		const global = globalExcludesFile();
		const globalRules = global === undefined ? undefined : readIgnoreFile(global);
		if (globalRules) repository.push({ scope: "", prefix: toRoot, file: globalRules });
		const ignores: Layer[] = [];
		const gitignores: Layer[] = [];
		if (top !== root) {
			for (let folder = dirname(root); ; folder = dirname(folder)) {
				const prefix = `${toPosix(relative(folder, root))}/`;
				const ignore = readIgnoreFile(join(folder, ".ignore"));
				if (ignore) ignores.unshift({ scope: "", prefix, file: ignore });
				const gitignore = readIgnoreFile(join(folder, ".gitignore"));
				if (gitignore) gitignores.unshift({ scope: "", prefix, file: gitignore });
				if (folder === top || dirname(folder) === folder) break;
			}
		}
		const stack = new IgnoreStack(ignores, gitignores, repository, true);
		return stack.rootIgnored() ? new IgnoreStack([], [], [], true) : stack;
	}

	/**
	 * The rules for the entries of the folder `absolutePath` (root-relative `scope`), adding its own
	 * ignore files. `hasIgnore` and `hasGitignore` say whether it holds them (from its listing), so
	 * that absent files cost no read; `isRepository`, whether it holds a `.git`.
	 */
	enter(
		absolutePath: string,
		scope: string,
		present: { ignore: boolean; gitignore: boolean; git: boolean },
	): IgnoreStack {
		const inRepository = this.inRepository || present.git;
		const ignore = present.ignore ? readIgnoreFile(join(absolutePath, ".ignore")) : undefined;
		const gitignore = present.gitignore && inRepository ? readIgnoreFile(join(absolutePath, ".gitignore")) : undefined;
		if (!ignore && !gitignore && inRepository === this.inRepository) return this;
		return new IgnoreStack(
			ignore ? [...this.ignores, { scope, prefix: "", file: ignore }] : this.ignores,
			gitignore ? [...this.gitignores, { scope, prefix: "", file: gitignore }] : this.gitignores,
			this.repository,
			inRepository,
		);
	}

	/** Whether the root-relative POSIX `path` (named `name`) is ignored; the folders above it are not. */
	isIgnored(path: string, name: string, isDirectory: boolean): boolean {
		const verdict =
			decide(this.ignores, path, name, isDirectory) ??
			decide(this.gitignores, path, name, isDirectory) ??
			decide(this.repository, path, name, isDirectory, true);
		return verdict === "ignored";
	}

	/** Whether the rules of the folders above the root ignore the root itself. */
	private rootIgnored(): boolean {
		const probe = (layers: readonly Layer[]) => {
			for (let index = layers.length - 1; index >= 0; index--) {
				const layer = layers[index] as Layer;
				if (layer.prefix === "") continue;
				const path = layer.prefix.slice(0, -1);
				const verdict = layer.file.verdict(path, path.slice(path.lastIndexOf("/") + 1), true);
				if (verdict) return verdict;
			}
			return undefined;
		};
		return (probe(this.ignores) ?? probe(this.gitignores) ?? probe(this.repository)) === "ignored";
	}
}

function decide(
	layers: readonly Layer[],
	path: string,
	name: string,
	isDirectory: boolean,
	inOrder = false,
): "ignored" | "included" | undefined {
	const count = layers.length;
	for (let step = 0; step < count; step++) {
		const layer = layers[inOrder ? step : count - 1 - step] as Layer;
		const local = layer.scope === "" ? layer.prefix + path : path.slice(layer.scope.length + 1);
		const verdict = layer.file.verdict(local, name, isDirectory);
		if (verdict) return verdict;
	}
	return undefined;
}

/** The nearest folder at or above `start` holding a `.git` entry, if any. */
function repositoryTop(start: string): string | undefined {
	for (let folder = start; ; folder = dirname(folder)) {
		if (statSync(join(folder, ".git"), { throwIfNoEntry: false })) return folder;
		if (dirname(folder) === folder) return undefined;
	}
}

let globalFile: { path: string | undefined } | undefined;

/**
 * The user's global excludes file, as git finds it: `core.excludesFile` of the user's git config
 * (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`), else `$XDG_CONFIG_HOME/git/ignore`, with
 * XDG_CONFIG_HOME defaulting to `~/.config`. Looked up once per process.
 */
function globalExcludesFile(): string | undefined {
	if (globalFile) return globalFile.path;
	const home = process.env.HOME ?? homedir();
	const xdg = process.env.XDG_CONFIG_HOME || join(home, ".config");
	let configured: string | undefined;
	for (const config of [join(xdg, "git", "config"), join(home, ".gitconfig")]) {
		const value = excludesFileSetting(readSmallFile(config));
		if (value !== undefined) configured = value;
	}
	const path =
		configured === undefined
			? join(xdg, "git", "ignore")
			: configured.startsWith("~/")
				? join(home, configured.slice(2))
				: configured;
	globalFile = { path };
	return path;
}

/** `excludesfile` of the `[core]` section of a git config file's text (case-insensitive keys). */
function excludesFileSetting(text: string | undefined): string | undefined {
	if (text === undefined) return undefined;
	let inCore = false;
	let value: string | undefined;
	for (const raw of text.split("\n")) {
		const line = raw.trim();
		const section = /^\[\s*([^\]\s"]+)/.exec(line);
		if (section) {
			inCore = section[1]?.toLowerCase() === "core";
			continue;
		}
		const setting = /^excludesfile\s*=\s*(.*)$/i.exec(line);
		if (inCore && setting) value = (setting[1] ?? "").replace(/^"(.*)"$/, "$1").trim();
	}
	return value;
}

function readIgnoreFile(path: string): IgnoreFile | undefined {
	const text = readSmallFile(path);
	if (text === undefined) return undefined;
	const file = IgnoreFile.parse(text, IGNORE_CASE);
	return file.size === 0 ? undefined : file;
}

/**
 * The folder holding a repository's shared files (`info/exclude`): `<top>/.git`, or for a worktree
 * or submodule, whose `.git` is a file saying `gitdir: <path>`, that folder's common folder.
 */
function commonGitDir(top: string): string {
	const dotGit = join(top, ".git");
	const pointer = readSmallFile(dotGit);
	const gitDir = pointer === undefined ? undefined : /^gitdir:\s*(.+?)\s*$/m.exec(pointer)?.[1];
	if (gitDir === undefined) return dotGit;
	const folder = resolve(top, gitDir);
	const common = readSmallFile(join(folder, "commondir"))?.trim();
	return common ? resolve(folder, common) : folder;
}

/** A regular file's text, or undefined when it is missing, not a regular file, unreadable or too large. */
function readSmallFile(path: string): string | undefined {
	try {
		const info = statSync(path, { throwIfNoEntry: false });
		if (!info?.isFile() || info.size > MAX_IGNORE_FILE_BYTES) return undefined;
		return readFileSync(path, "utf8");
	} catch (error) {
		// Unreadable (permissions, vanished since the stat): it adds no rules.
		if (error instanceof Error && "code" in error) return undefined;
		throw error;
	}
}

export function toPosix(path: string): string {
	return sep === "/" ? path : path.split(sep).join("/");
}
