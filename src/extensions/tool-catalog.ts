import type { AgentTool } from "../agent/types.js";
import type { ExtensionRecord } from "./registry.js";
import type { ToolInfo } from "./types.js";

/** The tools `pi.setActiveTools` chose; until it is called, every tool is active. */
export interface ActiveToolFilter {
	/** Keeps the names that name one of `known` (others are ignored, like pi). */
	set(names: readonly string[], known: readonly AgentTool[]): void;
	/** A tool registered after `set` is active too (registering activates, like pi). */
	activate(name: string): void;
	apply(tools: AgentTool[]): AgentTool[];
}

export function activeToolFilter(): ActiveToolFilter {
	let active: Set<string> | undefined;
	return {
		set(names, known) {
			const knownNames = new Set(known.map((tool) => tool.name));
			active = new Set(names.filter((name) => knownNames.has(name)));
		},
		activate(name) {
			active?.add(name);
		},
		apply: (tools) => (active === undefined ? tools : tools.filter((tool) => active?.has(tool.name))),
	};
}

type WithGuidelines = AgentTool & { promptGuidelines?: string[] };

/** `pi.getAllTools()`: every tool with where it comes from (built-in tools are `builtin:<name>`). */
export function toolInfos(tools: readonly WithGuidelines[], records: readonly ExtensionRecord[]): ToolInfo[] {
	return tools.map((tool) => {
		const owner = records.find((record) => record.tools.has(tool.name));
		const info: ToolInfo = {
			name: tool.name,
			description: tool.description,
			parameters: tool.parameters,
			exposure: "direct",
			sourceInfo: owner?.sourceInfo ?? {
				path: `builtin:${tool.name}`,
				source: "builtin",
				scope: "temporary",
				origin: "top-level",
			},
		};
		if (tool.promptGuidelines) info.promptGuidelines = [...tool.promptGuidelines];
		return info;
	});
}
