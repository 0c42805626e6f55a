import type { ResourceDiagnostic } from "./frontmatter.js";
import { loadPromptTemplates, type PromptTemplate } from "./prompt-templates.js";
import { loadSkills, type Skill } from "./skills.js";

export interface ResourceOptions {
	agentDir: string;
	cwd: string;
	skillPaths?: string[];
	templatePaths?: string[];
	/** False turns discovery off (`--no-skills`); explicit paths still load. */
	skills?: boolean;
	/** False turns discovery off (`--no-prompt-templates`); explicit paths still load. */
	templates?: boolean;
}

export interface LoadedResources {
	skills: Skill[];
	templates: PromptTemplate[];
	diagnostics: ResourceDiagnostic[];
}

/** Skills and prompt templates for one working directory. */
export async function loadResources(options: ResourceOptions): Promise<LoadedResources> {
	const [skills, templates] = await Promise.all([
		loadSkills({
			agentDir: options.agentDir,
			cwd: options.cwd,
			explicitPaths: options.skillPaths,
			enabled: options.skills,
		}),
		loadPromptTemplates({
			agentDir: options.agentDir,
			cwd: options.cwd,
			explicitPaths: options.templatePaths,
			enabled: options.templates,
		}),
	]);
	return {
		skills: skills.skills,
		templates: templates.templates,
		diagnostics: [...skills.diagnostics, ...templates.diagnostics],
	};
}
