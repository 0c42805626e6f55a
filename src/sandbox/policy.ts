import { readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { errorMessage } from "../platform/errors.js";
import { realPath, statIfAny } from "./real-path.js";
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

/** Shell start-up files: a write would run code outside the sandbox at the user's next login. */
const SHELL_STARTUP_FILES = [
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

/**
 * The git folders of a writable root: its `.git` folder, or for a worktree or submodule (a `.git`
 * file saying `gitdir: <path>`) that folder and the repository's common folder, so that `git add`
 * and `git commit` can write their index and objects.
 */
function gitFolders(root: string): string[] {
	const dotGit = join(root, ".git");
	const stats = statIfAny(dotGit);
	if (stats === undefined) return [];
	if (stats.isDirectory()) return [dotGit];
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
			try {
				for (const folder of gitFolders(root)) {
					if (!writableRoots.some((kept) => folder.startsWith(`${kept}/`) || folder === kept))
						extraGitFolders.push(folder);
				}
			} catch (error) {
				problems.push(`the git folder of ${root} cannot be read: ${errorMessage(error)}`);
			}
		}
		writableRoots.push(...extraGitFolders);
	}
	const readOnly = [
		...writableRoots.flatMap((root) => [
			...GIT_PROTECTED.map((name) => join(root, ".git", name)),
			...GIT_PROTECTED.map((name) => join(root, name)).filter(() => extraGitFolders.includes(root)),
		]),
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
