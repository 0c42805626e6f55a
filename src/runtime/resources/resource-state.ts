import { type CommandInfo, type ExtensionCommandInfo, expandInput, listCommands } from "../../resources/commands.js";
import type { LoadedResources } from "../../resources/load-resources.js";

const NONE: LoadedResources = { skills: [], templates: [], diagnostics: [] };

/** Skill and prompt template paths added by extensions (`resources_discover`), on top of the configured ones. */
export interface ExtraResourcePaths {
	skillPaths: string[];
	templatePaths: string[];
}

/**
 * The skills and prompt templates of the working directory, loaded in the background so that
 * start-up does not wait for them; whatever needs them (input expansion, get_commands, the
 * skills listing of the system prompt) awaits the load.
 */
export class ResourceState {
	private loading: Promise<LoadedResources> = Promise.resolve(NONE);
	/** The last completed load (NONE until one completes). */
	private latest: LoadedResources = NONE;
	private extra: ExtraResourcePaths = { skillPaths: [], templatePaths: [] };

	constructor(
		private readonly load: (cwd: string, extra: ExtraResourcePaths) => Promise<LoadedResources>,
		/** Receives the skills of each completed load (not of one superseded by a newer one). */
		private readonly skills: { setSkills(skills: LoadedResources["skills"], cwd: string): void },
		private readonly reports: { warn(message: string): void },
	) {}

	/** Adds paths found by extensions; they load from the next `reload` on. */
	addPaths(extra: ExtraResourcePaths): void {
		this.extra = {
			skillPaths: [...new Set([...this.extra.skillPaths, ...extra.skillPaths])],
			templatePaths: [...new Set([...this.extra.templatePaths, ...extra.templatePaths])],
		};
	}

	/** Starts loading the resources of `cwd`; earlier loads are superseded. */
	reload(cwd: string): void {
		const loading = this.load(cwd, this.extra)
			.catch((error: unknown): LoadedResources => {
				this.reports.warn(
					`Skills and prompt templates could not be loaded: ${error instanceof Error ? error.message : String(error)}`,
				);
				return NONE;
			})
			.then((resources) => {
				if (this.loading === loading) {
					this.latest = resources;
					for (const diagnostic of resources.diagnostics) {
						process.stderr.write(`${diagnostic.path}: ${diagnostic.message}\n`);
					}
					this.skills.setSkills(resources.skills, cwd);
				}
				return resources;
			});
		this.loading = loading;
	}

	get current(): Promise<LoadedResources> {
		return this.loading;
	}

	/** Expands `/skill:name` and `/template` input; other text is returned as is. */
	async expand(text: string): Promise<string> {
		if (!text.startsWith("/")) return text;
		return expandInput(text, await this.loading);
	}

	/** Like `commands`, from what is loaded now (for callers that cannot wait). */
	commandsNow(extensionCommands: ExtensionCommandInfo[] = []): CommandInfo[] {
		return listCommands({ extensionCommands, templates: this.latest.templates, skills: this.latest.skills });
	}

	/** Commands usable as `/name`: extension commands, then templates, then skills. */
	async commands(extensionCommands: ExtensionCommandInfo[] = []): Promise<CommandInfo[]> {
		const { templates, skills } = await this.loading;
		return listCommands({ extensionCommands, templates, skills });
	}
}
