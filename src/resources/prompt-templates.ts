import { readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { type ResourceDiagnostic, readMarkdownResource } from "./frontmatter.js";
import { canonicalPath, type ResourceLocation, resolveUserPath, statIfExists } from "./resource-paths.js";
import { parseSlashCommand } from "./slash-command.js";

export interface PromptTemplate {
	name: string;
	description: string;
	filePath: string;
	location: ResourceLocation;
	/** The text after the frontmatter, trimmed. */
	body: string;
	argumentHint?: string;
}

export interface LoadPromptTemplatesOptions {
	agentDir: string;
	cwd: string;
	/** `--prompt-template PATH` values (a .md file or a directory of them); loaded even when discovery is off. */
	explicitPaths?: string[];
	/** False (`--no-prompt-templates`): skip `<agentDir>/prompts` and `.atomic/prompts`. */
	enabled?: boolean;
}

export interface PromptTemplatesLoad {
	templates: PromptTemplate[];
	diagnostics: ResourceDiagnostic[];
}

interface TemplateFile {
	filePath: string;
	location: ResourceLocation;
}

const FALLBACK_DESCRIPTION_LENGTH = 60;

/** The `*.md` files directly inside a directory (no recursion), sorted by name. */
function markdownFilesIn(
	directory: string,
	location: ResourceLocation,
	diagnostics: ResourceDiagnostic[],
): TemplateFile[] {
	if (!statIfExists(directory)?.isDirectory()) return [];
	let names: string[];
	try {
		names = readdirSync(directory).sort();
	} catch (error) {
		const reason = error instanceof Error ? error.message : String(error);
		diagnostics.push({ path: directory, message: `cannot list directory: ${reason}` });
		return [];
	}
	return names
		.filter((name) => name.endsWith(".md") && statIfExists(join(directory, name))?.isFile())
		.map((name): TemplateFile => ({ filePath: join(directory, name), location }));
}

/**
 * Template files in precedence order: explicit paths, then the project, then the agent dir.
 * The first file with a given name wins, so a project template overrides a user template of the
 * same name (the project knows its own workflow better than a global default).
 */
function templateFiles(options: LoadPromptTemplatesOptions, diagnostics: ResourceDiagnostic[]): TemplateFile[] {
	const files: TemplateFile[] = [];
	for (const path of options.explicitPaths ?? []) {
		const resolved = resolveUserPath(path, options.cwd);
		const stats = statIfExists(resolved);
		if (stats?.isDirectory()) files.push(...markdownFilesIn(resolved, "path", diagnostics));
		else if (stats?.isFile()) files.push({ filePath: resolved, location: "path" });
		else diagnostics.push({ path: resolved, message: "prompt template path does not exist" });
	}
	if (options.enabled === false) return files;
	files.push(...markdownFilesIn(join(options.cwd, ".atomic", "prompts"), "project", diagnostics));
	files.push(...markdownFilesIn(join(options.agentDir, "prompts"), "user", diagnostics));
	return files;
}

function fallbackDescription(body: string): string {
	const firstLine = body.split("\n").find((line) => line.trim() !== "") ?? "";
	return firstLine.trim().slice(0, FALLBACK_DESCRIPTION_LENGTH);
}

/** Discovers prompt templates; unreadable or invalid files are skipped and reported in `diagnostics`. */
export async function loadPromptTemplates(options: LoadPromptTemplatesOptions): Promise<PromptTemplatesLoad> {
	const diagnostics: ResourceDiagnostic[] = [];
	const seenFiles = new Set<string>();
	const byName = new Map<string, PromptTemplate>();
	for (const file of templateFiles(options, diagnostics)) {
		const canonical = canonicalPath(file.filePath);
		if (seenFiles.has(canonical)) continue;
		seenFiles.add(canonical);
		const name = basename(file.filePath).replace(/\.md$/, "");
		const kept = byName.get(name);
		if (kept) {
			diagnostics.push({
				path: file.filePath,
				message: `prompt template "${name}" not loaded: overridden by ${kept.filePath}`,
			});
			continue;
		}
		const parsed = await readMarkdownResource(file.filePath, diagnostics);
		if (!parsed) continue;
		const body = parsed.body.trim();
		const { description, "argument-hint": argumentHint } = parsed.attributes;
		const template: PromptTemplate = {
			name,
			description:
				typeof description === "string" && description.trim() ? description.trim() : fallbackDescription(body),
			filePath: file.filePath,
			location: file.location,
			body,
		};
		if (typeof argumentHint === "string") template.argumentHint = argumentHint;
		byName.set(name, template);
	}
	return { templates: [...byName.values()], diagnostics };
}

/**
 * Splits arguments on spaces and tabs. Single or double quotes group words and are removed; there
 * are no escapes. A quoted empty string (`""`) is kept as an empty argument.
 */
export function parseTemplateArguments(text: string): string[] {
	const args: string[] = [];
	let current = "";
	let inToken = false;
	let quote: string | undefined;
	for (const char of text) {
		if (quote) {
			if (char === quote) quote = undefined;
			else current += char;
		} else if (char === '"' || char === "'") {
			quote = char;
			inToken = true;
		} else if (char === " " || char === "\t") {
			if (inToken) args.push(current);
			current = "";
			inToken = false;
		} else {
			current += char;
			inToken = true;
		}
	}
	if (inToken) args.push(current);
	return args;
}

/**
 * Every placeholder form in one pattern, so a single `replace` pass substitutes them all and never
 * rescans inserted text (an argument containing `$1` stays as typed). Defaults are at most 1024 chars.
 */
const PLACEHOLDER =
	/\$\{(?<defaultIndex>[1-9]\d*):-(?<indexDefault>[^}]{0,1024})\}|\$\{(?:@|ARGUMENTS):-(?<allDefault>[^}]{0,1024})\}|\$\{@:(?<sliceStart>[1-9]\d*)(?::(?<sliceLength>\d+))?\}|\$(?:ARGUMENTS|@)|\$(?<index>[1-9]\d*)/g;

function replacement(match: RegExpExecArray, args: string[]): string {
	const groups = match.groups ?? {};
	const at = (position: string) => args[Number(position) - 1] ?? "";
	if (groups.defaultIndex !== undefined) return at(groups.defaultIndex) || (groups.indexDefault ?? "");
	if (groups.allDefault !== undefined) return args.join(" ") || groups.allDefault;
	if (groups.sliceStart !== undefined) {
		const start = Number(groups.sliceStart) - 1;
		const end = groups.sliceLength === undefined ? undefined : start + Number(groups.sliceLength);
		return args.slice(start, end).join(" ");
	}
	if (groups.index !== undefined) return at(groups.index);
	return args.join(" "); // `$@` or `$ARGUMENTS`
}

/** Fills a template body with arguments: `$1`, `$@`, `$ARGUMENTS`, `${1:-d}`, `${@:-d}`, `${@:N}`, `${@:N:L}`. */
export function substituteArguments(body: string, args: string[]): string {
	let result = "";
	let copiedUpTo = 0;
	for (const match of body.matchAll(PLACEHOLDER)) {
		result += body.slice(copiedUpTo, match.index) + replacement(match, args);
		copiedUpTo = match.index + match[0].length;
	}
	return result + body.slice(copiedUpTo);
}

/** `/name args...` naming a loaded template → its body with the arguments filled in; else undefined. */
export function expandPromptTemplate(text: string, templates: PromptTemplate[]): string | undefined {
	const command = parseSlashCommand(text);
	if (!command) return undefined;
	const template = templates.find((candidate) => candidate.name === command.name);
	if (!template) return undefined;
	return substituteArguments(template.body, parseTemplateArguments(command.args));
}
