import type { AgentTool, AgentToolResult } from "../agent/types.js";
import type { ExtensionContext, ToolDefinition } from "./types.js";

function checkResult(toolName: string, result: unknown): AgentToolResult {
	if (typeof result === "object" && result !== null && "content" in result && Array.isArray(result.content))
		return result as AgentToolResult;
	throw new Error(`Tool "${toolName}" returned an invalid result: expected an object with a \`content\` array`);
}

/**
 * Wraps an extension's tool as an AgentTool. A throwing `execute` (or a malformed result) becomes
 * the loop's error result, like any tool failure.
 */
export function toAgentTool(definition: ToolDefinition, context: (signal: AbortSignal) => ExtensionContext): AgentTool {
	const tool: AgentTool = {
		name: definition.name,
		description: definition.description,
		parameters: definition.parameters,
		async execute(toolCallId, args, signal, onUpdate) {
			const result: unknown = await definition.execute(toolCallId, args, signal, onUpdate, context(signal));
			return checkResult(definition.name, result);
		},
	};
	if (definition.label !== undefined) tool.label = definition.label;
	return tool;
}
