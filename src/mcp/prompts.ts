import type { McpConnection } from "./connection.js";
import { agentToolName } from "./tools.js";
import type { McpPromptArgument, McpPromptInfo } from "./types.js";

/** A server's prompts as commands (`mcp__<server>__<prompt>`, named like its tools). */
export function promptsOf(connection: McpConnection): McpPromptInfo[] {
	return connection.prompts.map((prompt) => {
		const info: McpPromptInfo = {
			command: agentToolName(connection.name, prompt.name),
			server: connection.name,
			prompt: prompt.name,
			arguments: (prompt.arguments ?? []).map((argument) => {
				const entry: McpPromptArgument = { name: argument.name };
				if (argument.description !== undefined) entry.description = argument.description;
				if (argument.required !== undefined) entry.required = argument.required;
				return entry;
			}),
		};
		const description = prompt.description ?? prompt.title;
		if (description !== undefined) info.description = description;
		return info;
	});
}

function usage(prompt: McpPromptInfo): string {
	const names = prompt.arguments.map((argument) => (argument.required ? `<${argument.name}>` : `[${argument.name}]`));
	return [`/${prompt.command}`, ...names].join(" ");
}

/**
 * Positional command arguments as the prompt's named arguments, in the order the server declares
 * them; words beyond the last declared argument join it. Throws, with the usage, when a required
 * argument is missing.
 */
export function promptArguments(prompt: McpPromptInfo, words: string[]): Record<string, string> {
	const result: Record<string, string> = {};
	const declared = prompt.arguments;
	declared.forEach((argument, index) => {
		const value = index === declared.length - 1 ? words.slice(index).join(" ") : words[index];
		if (value !== undefined && value !== "") result[argument.name] = value;
		else if (argument.required) throw new Error(`/${prompt.command} needs "${argument.name}": ${usage(prompt)}`);
	});
	return result;
}
