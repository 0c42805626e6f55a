import { type Dirent, readdirSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { errorCode, errorMessage } from "../platform/errors.js";
import { isWithin, realPath, statIfAny } from "./real-path.js";
import type { EffectiveSandboxSettings } from "./settings.js";
import type { SandboxLimits, SandboxMode, SandboxNetwork } from "./types.js";

/** Hidden from commands and refused to the file tools unless settings say otherwise (`~` is the home folder). */
export const DEFAULT_DENY_READ = [
	"~/.ssh",
	"~/.gnupg",
	"~/.aws",
	"~/.azure",
	"~/.config/gcloud",
	"~/.kube",
	"~/.docker/config.json",
	"~/.netrc",
	"~/.npmrc",
	"~/.pypirc",
] as const;

/**
 * Shell start-up files and git's user configuration: a write would run code outside the sandbox
 * at the user's next login or git command.
 */
const SHELL_STARTUP_FILES = [
	".gitconfig",
	".config/git",
	".bashrc",
	".bash_profile",
	".bash_login",
	".bash_logout",
	".profile",
	".zshrc",
	".zprofile",
	".zshenv",
] as const;

/** Inside a writable root's `.git`: they would run code outside the sandbox at the next git command. */
const GIT_PROTECTED = ["hooks", "config"] as const;

/** Where the sandbox is made: the user's folders it needs. */
export interface SandboxPlaces {
	cwd: string;
	home: string;
	agentDir: string;
}

/** Everything the sandbox needs to know for commands started in one folder; paths resolved. */
export interface SandboxPolicy {
	mode: Exclude<SandboxMode, "off">;
	cwd: string;
	/** Writable for commands and the file tools (empty in read-only mode). */
	writableRoots: string[];
	/** Read-only although inside a writable root (`.git/hooks`, start-up files, the agent folder). */
	readOnly: string[];
	/** Hidden from commands, refused to the file tools. */
	denyRead: string[];
	network: SandboxNetwork;
	limits: SandboxLimits;
	/** Roots that were configured but could not be used, with why. */
	problems: string[];
}

function expand(path: string, { cwd, home }: SandboxPlaces): string {
	if (path === "~") return home;
	if (path.startsWith("~/")) return join(home, path.slice(2));
	return isAbsolute(path) ? resolve(path) : resolve(cwd, path);
}

function isFolder(path: string): boolean {
	return statIfAny(path)?.isDirectory() ?? false;
}

function exists(path: string): boolean {
	return statIfAny(path) !== undefined;
}

/** How deep below a writable root repositories are looked for, and how many folders at most. */
const GIT_SCAN_DEPTH = 3;
const GIT_SCAN_FOLDERS = 5000;
/** Folders not looked into for repositories (large, and holding none a user works in). */
const GIT_SCAN_SKIPPED = new Set(["node_modules", ".git"]);

/** The `.git` entries at a writable root and up to GIT_SCAN_DEPTH folders below it (nested checkouts). */
function findDotGits(root: string): string[] {
	const found: string[] = [];
	let budget = GIT_SCAN_FOLDERS;
	const visit = (folder: string, depth: number) => {
		if (budget-- <= 0) return;
		let entries: Dirent[];
		try {
			entries = readdirSync(folder, { withFileTypes: true });
		} catch (error) {
			// A folder that cannot be listed holds no repository the sandbox can see either.
			if (errorCode(error) === "EACCES" || errorCode(error) === "ENOENT") return;
			throw error;
		}
		for (const entry of entries) {
			if (entry.name === ".git") found.push(join(folder, ".git"));
			else if (depth < GIT_SCAN_DEPTH && entry.isDirectory() && !GIT_SCAN_SKIPPED.has(entry.name)) {
				visit(join(folder, entry.name), depth + 1);
			}
		}
	};
	visit(root, 0);
	return found;
}

/**
 * The git folders of a `.git` entry: the folder itself, or for a worktree or submodule (a `.git`
 * file saying `gitdir: <path>`) that folder and the repository's common folder, which must be
 * writable for `git add` and `git commit` to write their index and objects.
 */
function gitFolders(dotGit: string): string[] {
	const root = dirname(dotGit);
	const stats = statIfAny(dotGit);
	if (stats === undefined) return [];
	if (stats.isDirectory()) return [realPath(dotGit)];
	if (!stats.isFile() || stats.size > 4096) return [];
	const line = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, "utf8"));
	if (!line?.[1]) return [];
	const gitDir = realPath(resolve(root, line[1]));
	const folders = [gitDir];
	const common = join(gitDir, "commondir");
	if (exists(common)) folders.push(realPath(resolve(gitDir, readFileSync(common, "utf8").trim())));
	return folders.filter(isFolder);
}

/** The policy for commands run in `places.cwd`; undefined when the sandbox is off. */
export function sandboxPolicy(settings: EffectiveSandboxSettings, places: SandboxPlaces): SandboxPolicy | undefined {
	if (settings.mode === "off") return undefined;
	const problems: string[] = [];
	const cwd = realPath(places.cwd);
	const writableRoots: string[] = [];
	const extraGitFolders: string[] = [];
	/** Every git folder inside (or added to) the writable roots: their hooks and config stay read-only. */
	const gitDirs: string[] = [];
	if (settings.mode === "workspace-write") {
		for (const configured of [places.cwd, ...settings.writableRoots]) {
			const root = realPath(expand(configured, places));
			if (!isFolder(root)) {
				problems.push(`writable root ${configured} is not a folder: commands cannot write there`);
				continue;
			}
			if (!writableRoots.includes(root)) writableRoots.push(root);
		}
		for (const root of [...writableRoots]) {
			for (const dotGit of findDotGits(root)) {
				try {
					for (const folder of gitFolders(dotGit)) {
						if (!gitDirs.includes(folder)) gitDirs.push(folder);
						if (!writableRoots.some((kept) => isWithin(folder, kept))) extraGitFolders.push(folder);
					}
				} catch (error) {
					problems.push(`the git folder ${dotGit} cannot be read: ${errorMessage(error)}`);
				}
			}
		}
		writableRoots.push(...extraGitFolders);
	}
	const readOnly = [
		...gitDirs.flatMap((folder) => GIT_PROTECTED.map((name) => join(folder, name))),
		...SHELL_STARTUP_FILES.map((name) => join(places.home, name)),
		places.agentDir,
	].map((path) => realPath(path));
	const denyRead = [...DEFAULT_DENY_READ, join(places.agentDir, "auth.json"), ...settings.denyRead].map((path) =>
		realPath(expand(path, places)),
	);
	return {
		mode: settings.mode,
		cwd,
		writableRoots,
		readOnly: [...new Set(readOnly)],
		denyRead: [...new Set(denyRead)],
		network: settings.network,
		limits: settings.limits,
		problems,
	};
}
