import type { AgentTool } from "../../agent/types.js";
import type { Skill } from "../../resources/skills.js";

/** Where the tools and the system prompt come from. */
export interface ToolAndPromptSources {
	/** The built-in tools for a working directory (called once per directory). */
	builtIn(cwd: string): AgentTool[];
	/** The system prompt for a directory, its tools and its skills. */
	systemPrompt(cwd: string, tools: AgentTool[], skills: Skill[]): string;
}

/**
 * The one owner of the active tools and the system prompt. Both are derived from the working
 * directory, the tool sources and the loaded skills, and rebuilt only when one of those changed;
 * a run reads them here at the start of each turn.
 */
export class ToolsAndPrompt {
	private cwd: string;
	private skills: Skill[] = [];
	private builtInFor: { cwd: string; tools: AgentTool[] } | undefined;
	/** The system prompt is made on first read: start-up (the first get_state) lists tools only. */
	private built: { every: AgentTool[]; tools: AgentTool[]; systemPrompt?: string } | undefined;
	private readonly extra: (() => AgentTool[])[] = [];
	/** Narrows the offered tools (extensions' `setActiveTools`); absent: every tool is offered. */
	private filter: ((tools: AgentTool[]) => AgentTool[]) | undefined;
	/** Replaces the built prompt until cleared (`before_agent_start`, for one run). */
	private replacement: string | undefined;

	constructor(
		private readonly sources: ToolAndPromptSources,
		cwd: string,
	) {
		this.cwd = cwd;
	}

	get tools(): AgentTool[] {
		return this.build().tools;
	}

	get systemPrompt(): string {
		if (this.replacement !== undefined) return this.replacement;
		const built = this.build();
		built.systemPrompt ??= this.sources.systemPrompt(this.cwd, built.tools, this.skills);
		return built.systemPrompt;
	}

	/** Every tool of the sources, before the filter (what `pi.getAllTools()` lists). */
	get everyTool(): AgentTool[] {
		return this.build().every;
	}

	/** Sets the filter of the offered tools; it is read whenever the list is rebuilt. Must not throw. */
	setFilter(filter: (tools: AgentTool[]) => AgentTool[]): void {
		this.filter = filter;
		this.built = undefined;
	}

	/** Replaces the system prompt (`undefined` goes back to the built one). */
	replaceSystemPrompt(text: string | undefined): void {
		this.replacement = text;
	}

	/** The session moved to another working directory. */
	setCwd(cwd: string): void {
		if (cwd === this.cwd) return;
		this.cwd = cwd;
		this.skills = [];
		this.built = undefined;
	}

	/** Skills of `cwd` finished loading (ignored when the directory changed meanwhile). */
	setSkills(skills: Skill[], cwd: string): void {
		if (cwd !== this.cwd) return;
		this.skills = skills;
		this.built = undefined;
	}

	/**
	 * Adds tools on top of the built-in ones (extensions, then MCP servers, in the order added); a
	 * tool replaces an earlier one of the same name. Called whenever the list is rebuilt; must not throw.
	 */
	addSource(source: () => AgentTool[]): void {
		this.extra.push(source);
		this.built = undefined;
	}

	/** A tool source changed (an extension registered a tool, an MCP server's list changed). */
	invalidate(): void {
		this.built = undefined;
	}

	private build(): { every: AgentTool[]; tools: AgentTool[]; systemPrompt?: string } {
		if (this.built) return this.built;
		if (this.builtInFor?.cwd !== this.cwd) {
			this.builtInFor = { cwd: this.cwd, tools: this.sources.builtIn(this.cwd) };
		}
		let tools = this.builtInFor.tools;
		for (const source of this.extra) {
			const added = source();
			if (added.length === 0) continue;
			const names = new Set(added.map((tool) => tool.name));
			tools = [...tools.filter((tool) => !names.has(tool.name)), ...added];
		}
		const offered = this.filter ? this.filter(tools) : tools;
		this.built = { every: tools, tools: offered };
		return this.built;
	}
}
