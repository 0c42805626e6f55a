import { expandPromptTemplate, type PromptTemplate } from "./prompt-templates.js";
import type { ResourceLocation } from "./resource-paths.js";
import { expandSkillCommand, type Skill } from "./skills.js";

/** A command registered by an extension, as the extension layer reports it. */
export interface ExtensionCommandInfo {
	name: string;
	description?: string;
	path: string;
}

/** One item of the RPC `get_commands` response. */
export interface CommandInfo {
	name: string;
	description?: string;
	source: "extension" | "prompt" | "skill" | "mcp";
	/** Absent for extension and MCP commands. */
	location?: ResourceLocation;
	path?: string;
}

export interface CommandSources {
	extensionCommands: ExtensionCommandInfo[];
	templates: PromptTemplate[];
	skills: Skill[];
}

/** The commands usable as `/name`: extension commands, then prompt templates, then `skill:<name>`. */
export function listCommands(sources: CommandSources): CommandInfo[] {
	const extensions = sources.extensionCommands.map((command): CommandInfo => {
		const info: CommandInfo = { name: command.name, source: "extension", path: command.path };
		if (command.description !== undefined) info.description = command.description;
		return info;
	});
	const templates = sources.templates.map(
		(template): CommandInfo => ({
			name: template.name,
			description: template.description,
			source: "prompt",
			location: template.location,
			path: template.filePath,
		}),
	);
	const skills = sources.skills.map(
		(skill): CommandInfo => ({
			name: `skill:${skill.name}`,
			description: skill.description,
			source: "skill",
			location: skill.location,
			path: skill.filePath,
		}),
	);
	return [...extensions, ...templates, ...skills];
}

/**
 * Expands user input before it is sent or queued (prompt, steer, follow_up): a `/skill:name`
 * command first, else a `/template` command; any other text is returned unchanged.
 */
export function expandInput(text: string, resources: { templates: PromptTemplate[]; skills: Skill[] }): string {
	return expandSkillCommand(text, resources.skills) ?? expandPromptTemplate(text, resources.templates) ?? text;
}
