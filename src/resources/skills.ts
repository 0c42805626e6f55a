import { dirname, join } from "node:path";
import { MAX_CONFIG_FILE_BYTES, readRegularFileSync } from "../platform/regular-file.js";
import { type ResourceDiagnostic, readMarkdownResource, splitFrontmatter } from "./frontmatter.js";
import { canonicalPath, type ResourceLocation } from "./resource-paths.js";
import {
	discoverSkillRoot,
	explicitSkillCandidate,
	projectSkillRoots,
	type SkillCandidate,
} from "./skill-discovery.js";
import { parseSlashCommand } from "./slash-command.js";

export interface Skill {
	name: string;
	description: string;
	filePath: string;
	/** The skill's directory; relative references inside the skill resolve against it. */
	baseDir: string;
	location: ResourceLocation;
	/** True: not listed in the system prompt, only usable as `/skill:name`. */
	disableModelInvocation: boolean;
}

export interface LoadSkillsOptions {
	agentDir: string;
	cwd: string;
	/** `--skill PATH` values; loaded even when discovery is disabled. */
	explicitPaths?: string[];
	/** False (`--no-skills`): skip discovery in the agent dir and the project. */
	enabled?: boolean;
}

export interface SkillsLoad {
	skills: Skill[];
	diagnostics: ResourceDiagnostic[];
}

const MAX_NAME_LENGTH = 64;
const MAX_DESCRIPTION_LENGTH = 1024;
const MAX_COMPATIBILITY_LENGTH = 500;
const SKILL_COMMAND_PREFIX = "skill:";

function nameProblem(name: string): string | undefined {
	if (name.length < 1 || name.length > MAX_NAME_LENGTH) return `must be 1-${MAX_NAME_LENGTH} characters`;
	if (!/^[a-z0-9-]+$/.test(name)) return "may contain only lowercase letters, digits and hyphens";
	if (name.startsWith("-") || name.endsWith("-")) return "must not start or end with a hyphen";
	if (name.includes("--")) return "must not contain consecutive hyphens";
	return undefined;
}

/** Checks the frontmatter; only a missing description rejects the skill, the rest are warnings. */
function toSkill(
	candidate: SkillCandidate,
	attributes: Record<string, unknown>,
	diagnostics: ResourceDiagnostic[],
): Skill | undefined {
	const path = candidate.filePath;
	const warn = (message: string) => diagnostics.push({ path, message: `warning: ${message}` });
	const description = attributes.description;
	if (typeof description !== "string" || description.trim() === "") {
		diagnostics.push({ path, message: "skill not loaded: frontmatter has no description" });
		return undefined;
	}
	if (description.length > MAX_DESCRIPTION_LENGTH) {
		warn(`description is longer than ${MAX_DESCRIPTION_LENGTH} characters`);
	}
	let name = candidate.defaultName;
	if (attributes.name !== undefined) {
		if (typeof attributes.name === "string") name = attributes.name;
		else warn(`name must be a string; using "${name}"`);
	}
	const problem = nameProblem(name);
	if (problem) warn(`skill name "${name}" ${problem}`);
	if (name !== candidate.defaultName) warn(`skill name "${name}" differs from "${candidate.defaultName}"`);
	const compatibility = attributes.compatibility;
	if (typeof compatibility === "string" && compatibility.length > MAX_COMPATIBILITY_LENGTH) {
		warn(`compatibility is longer than ${MAX_COMPATIBILITY_LENGTH} characters`);
	}
	const metadata = attributes.metadata;
	if (metadata !== undefined && (typeof metadata !== "object" || metadata === null || Array.isArray(metadata))) {
		warn("metadata must be a mapping");
	}
	return {
		name,
		description: description.trim(),
		filePath: path,
		baseDir: dirname(path),
		location: candidate.location,
		disableModelInvocation: attributes["disable-model-invocation"] === true,
	};
}

/** Candidates in precedence order: explicit paths, project roots nearest first, then the agent dir. */
function skillCandidates(options: LoadSkillsOptions, diagnostics: ResourceDiagnostic[]): SkillCandidate[] {
	const candidates: SkillCandidate[] = [];
	for (const path of options.explicitPaths ?? []) {
		const candidate = explicitSkillCandidate(path, options.cwd, diagnostics);
		if (candidate) candidates.push(candidate);
	}
	if (options.enabled === false) return candidates;
	for (const root of projectSkillRoots(options.cwd)) {
		candidates.push(...discoverSkillRoot(root, "project", diagnostics));
	}
	candidates.push(...discoverSkillRoot(join(options.agentDir, "skills"), "user", diagnostics));
	return candidates;
}

/** Discovers and validates skills. Invalid ones are skipped and reported in `diagnostics`. */
export async function loadSkills(options: LoadSkillsOptions): Promise<SkillsLoad> {
	const diagnostics: ResourceDiagnostic[] = [];
	const seenFiles = new Set<string>();
	const byName = new Map<string, Skill>();
	for (const candidate of skillCandidates(options, diagnostics)) {
		// The same file reached twice (an explicit path inside a discovered dir, symlinks) is not a collision.
		const canonical = canonicalPath(candidate.filePath);
		if (seenFiles.has(canonical)) continue;
		seenFiles.add(canonical);
		const parsed = await readMarkdownResource(candidate.filePath, diagnostics);
		if (!parsed) continue;
		const skill = toSkill(candidate, parsed.attributes, diagnostics);
		if (!skill) continue;
		const kept = byName.get(skill.name);
		if (kept) {
			diagnostics.push({
				path: skill.filePath,
				message: `skill "${skill.name}" not loaded: the name is already used by ${kept.filePath}`,
			});
			continue;
		}
		byName.set(skill.name, skill);
	}
	return { skills: [...byName.values()], diagnostics };
}

function escapeXml(text: string): string {
	return text
		.replace(/&/g, "&amp;")
		.replace(/</g, "&lt;")
		.replace(/>/g, "&gt;")
		.replace(/"/g, "&quot;")
		.replace(/'/g, "&apos;");
}

/** The system-prompt listing of the skills the model may pick by itself; undefined when there are none. */
export function skillsPromptSection(skills: Skill[]): string | undefined {
	const visible = skills.filter((skill) => !skill.disableModelInvocation);
	if (visible.length === 0) return undefined;
	const items = visible.map((skill) =>
		[
			"  <skill>",
			`    <name>${escapeXml(skill.name)}</name>`,
			`    <description>${escapeXml(skill.description)}</description>`,
			`    <location>${escapeXml(skill.filePath)}</location>`,
			"  </skill>",
		].join("\n"),
	);
	return [
		"Skills are instruction files for specific kinds of tasks. When a task matches a skill's description, read the skill's file (its location) before starting and follow it.",
		"Relative paths inside a skill file are relative to the skill's directory (the directory containing its file); resolve them against it to get absolute paths.",
		"",
		"<available_skills>",
		...items,
		"</available_skills>",
	].join("\n");
}

/**
 * `/skill:<name> [args]` → the skill's body wrapped in a `<skill>` block, with the args after it.
 * Undefined when the text is not a skill command or names no loaded skill (the text is sent as typed).
 */
export function expandSkillCommand(text: string, skills: Skill[]): string | undefined {
	const command = parseSlashCommand(text);
	if (!command?.name.startsWith(SKILL_COMMAND_PREFIX)) return undefined;
	const name = command.name.slice(SKILL_COMMAND_PREFIX.length);
	const skill = skills.find((candidate) => candidate.name === name);
	if (!skill) return undefined;
	let content: string;
	try {
		content = readRegularFileSync(skill.filePath, { maxBytes: MAX_CONFIG_FILE_BYTES }).toString("utf8");
	} catch (error) {
		throw new Error(`cannot read skill "${name}" at ${skill.filePath}`, { cause: error });
	}
	const body = splitFrontmatter(content).body.trim();
	const block = [
		`<skill name="${escapeXml(skill.name)}" location="${escapeXml(skill.filePath)}">`,
		`References are relative to ${skill.baseDir}.`,
		"",
		body,
		"</skill>",
	].join("\n");
	return command.args ? `${block}\n\n${command.args}` : block;
}
