import type { AgentTool, AgentToolResult } from "../agent/types.js";
import type { ExtensionToolContext, ToolDefinition } from "./types.js";

function checkResult(toolName: string, result: unknown): AgentToolResult {
	if (typeof result === "object" && result !== null && "content" in result && Array.isArray(result.content))
		return result as AgentToolResult;
	throw new Error(`Tool "${toolName}" returned an invalid result: expected an object with a \`content\` array`);
}

/** An extension tool as the agent runs it, with the hints the system prompt reads. */
export type ExtensionAgentTool = AgentTool & { promptSnippet?: string; promptGuidelines?: string[] };

/**
 * Wraps an extension's tool as an AgentTool. A throwing `execute` (or a malformed result) becomes
 * the loop's error result, like any tool failure. Renderers are not carried over (nothing draws).
 */
export function toAgentTool(
	definition: ToolDefinition,
	context: (signal: AbortSignal, toolCallId: string) => ExtensionToolContext,
): ExtensionAgentTool {
	const tool: ExtensionAgentTool = {
		name: definition.name,
		description: definition.description,
		parameters: definition.parameters,
		async execute(toolCallId, args, signal, onUpdate) {
			const result: unknown = await definition.execute(toolCallId, args, signal, onUpdate, context(signal, toolCallId));
			return checkResult(definition.name, result);
		},
	};
	if (definition.label !== undefined) tool.label = definition.label;
	if (definition.executionMode !== undefined) tool.executionMode = definition.executionMode;
	if (definition.readOnly === true) tool.readOnly = true;
	if (definition.promptSnippet !== undefined) tool.promptSnippet = definition.promptSnippet;
	if (definition.promptGuidelines !== undefined) tool.promptGuidelines = [...definition.promptGuidelines];
	const prepare = definition.prepareArguments;
	if (prepare) tool.prepareArguments = (args) => prepare(args);
	return tool;
}
