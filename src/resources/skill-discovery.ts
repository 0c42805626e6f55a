import { readdirSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { ResourceDiagnostic } from "./frontmatter.js";
import { canonicalPath, findGitRoot, type ResourceLocation, resolveUserPath, statIfExists } from "./resource-paths.js";

/** A file that should hold a skill, before its frontmatter is read. */
export interface SkillCandidate {
	filePath: string;
	/** Used when the frontmatter has no `name`: the parent dir, or the file name for root-level files. */
	defaultName: string;
	location: ResourceLocation;
}

export const SKILL_FILE = "SKILL.md";
const SKIPPED_DIRS = new Set(["node_modules", ".git"]);

function readEntries(directory: string, diagnostics: ResourceDiagnostic[]): string[] {
	try {
		return readdirSync(directory).sort();
	} catch (error) {
		const reason = error instanceof Error ? error.message : String(error);
		diagnostics.push({ path: directory, message: `cannot list directory: ${reason}` });
		return [];
	}
}

/**
 * Walks below a skills root. A directory holding SKILL.md is one skill and is not descended into:
 * what lies below it (references, scripts, examples) belongs to that skill.
 */
function walkSkillDirs(
	directory: string,
	location: ResourceLocation,
	visited: Set<string>,
	found: SkillCandidate[],
	diagnostics: ResourceDiagnostic[],
): void {
	const canonical = canonicalPath(directory);
	if (visited.has(canonical)) return;
	visited.add(canonical);
	const skillFile = join(directory, SKILL_FILE);
	if (statIfExists(skillFile)?.isFile()) {
		found.push({ filePath: skillFile, defaultName: basename(directory), location });
		return;
	}
	for (const name of readEntries(directory, diagnostics)) {
		if (SKIPPED_DIRS.has(name)) continue;
		const path = join(directory, name);
		if (statIfExists(path)?.isDirectory()) walkSkillDirs(path, location, visited, found, diagnostics);
	}
}

/** Skills under one skills root: its root-level `*.md` files, then every SKILL.md directory below it. */
export function discoverSkillRoot(
	root: string,
	location: ResourceLocation,
	diagnostics: ResourceDiagnostic[],
): SkillCandidate[] {
	if (!statIfExists(root)?.isDirectory()) return [];
	const found: SkillCandidate[] = [];
	const visited = new Set<string>([canonicalPath(root)]);
	const subdirectories: string[] = [];
	for (const name of readEntries(root, diagnostics)) {
		if (SKIPPED_DIRS.has(name)) continue;
		const path = join(root, name);
		const stats = statIfExists(path);
		if (stats?.isFile() && name.endsWith(".md")) {
			found.push({ filePath: path, defaultName: name.slice(0, -".md".length), location });
		} else if (stats?.isDirectory()) {
			subdirectories.push(path);
		}
	}
	for (const path of subdirectories) walkSkillDirs(path, location, visited, found, diagnostics);
	return found;
}

/** `.atomic/skills` in the cwd and each ancestor up to the git root, nearest first (only cwd outside git). */
export function projectSkillRoots(cwd: string): string[] {
	const start = resolve(cwd);
	const gitRoot = findGitRoot(start);
	if (!gitRoot) return [join(start, ".atomic", "skills")];
	const roots: string[] = [];
	for (let directory = start; ; directory = dirname(directory)) {
		roots.push(join(directory, ".atomic", "skills"));
		if (directory === gitRoot || dirname(directory) === directory) break;
	}
	return roots;
}

/** `--skill PATH`: a skill file (usually SKILL.md) or a directory that contains SKILL.md. */
export function explicitSkillCandidate(
	path: string,
	cwd: string,
	diagnostics: ResourceDiagnostic[],
): SkillCandidate | undefined {
	const resolved = resolveUserPath(path, cwd);
	const stats = statIfExists(resolved);
	if (stats?.isDirectory()) {
		const skillFile = join(resolved, SKILL_FILE);
		if (statIfExists(skillFile)?.isFile()) {
			return { filePath: skillFile, defaultName: basename(resolved), location: "path" };
		}
		diagnostics.push({ path: resolved, message: `skill directory has no ${SKILL_FILE}` });
		return undefined;
	}
	if (stats?.isFile()) {
		const fileName = basename(resolved);
		const defaultName = fileName === SKILL_FILE ? basename(dirname(resolved)) : fileName.replace(/\.md$/, "");
		return { filePath: resolved, defaultName, location: "path" };
	}
	diagnostics.push({ path: resolved, message: "skill path does not exist" });
	return undefined;
}

/**
 * Skill paths as extensions give them (`resources_discover`): a skill file, a skill directory,
 * or a directory of skill directories, which becomes its subdirectories that hold SKILL.md.
 */
export function expandSkillRoots(paths: readonly string[], cwd: string): string[] {
	return paths.flatMap((path) => {
		const resolved = resolveUserPath(path, cwd);
		if (!statIfExists(resolved)?.isDirectory() || statIfExists(join(resolved, SKILL_FILE))?.isFile()) return [path];
		// A directory that cannot be listed stays as given: loading it reports the problem.
		const children = readEntries(resolved, [])
			.map((name) => join(resolved, name))
			.filter((child) => statIfExists(join(child, SKILL_FILE))?.isFile());
		return children.length > 0 ? children : [path];
	});
}
