import type { AvailableCommand } from "@agentclientprotocol/sdk";
import type { CommandInfo } from "../resources/commands.js";

const HINTS: Record<CommandInfo["source"], string> = {
	extension: "arguments",
	prompt: "arguments",
	skill: "what to do",
	mcp: "arguments",
};

const SOURCES: Record<CommandInfo["source"], string> = {
	extension: "extension command",
	prompt: "prompt template",
	skill: "skill",
	mcp: "MCP server prompt",
};

/** Atomic's slash commands (extension commands, prompt templates, skills, MCP prompts) as ACP commands. */
export function availableCommands(commands: readonly CommandInfo[]): AvailableCommand[] {
	return commands.map((command) => ({
		name: command.name,
		description: command.description?.trim() || SOURCES[command.source],
		input: { hint: HINTS[command.source] },
	}));
}
