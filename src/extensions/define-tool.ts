import type { TSchema } from "typebox";
import type { ToolCallEvent, ToolResultEvent } from "./events.js";
import type { ToolDefinition } from "./types.js";

/**
 * Returns the tool as given. It exists for typing: a tool kept in a variable (or an array) before
 * `registerTool` keeps the parameter types of its schema in `execute`.
 */
export function defineTool<TParams extends TSchema, TDetails = unknown>(
	tool: ToolDefinition<TParams, TDetails>,
): ToolDefinition<TParams, TDetails> {
	return tool;
}

/** Narrows a `tool_call` event to one tool, so `event.input` can be typed by the caller. */
export function isToolCallEventType<TName extends string, TInput extends Record<string, unknown>>(
	toolName: TName,
	event: ToolCallEvent,
): event is ToolCallEvent & { toolName: TName; input: TInput } {
	return event.toolName === toolName;
}

function resultOf(toolName: string) {
	return (event: ToolResultEvent): boolean => event.toolName === toolName;
}

export const isBashToolResult = resultOf("bash");
export const isReadToolResult = resultOf("read");
export const isEditToolResult = resultOf("edit");
export const isWriteToolResult = resultOf("write");
export const isGrepToolResult = resultOf("grep");
export const isFindToolResult = resultOf("find");
export const isLsToolResult = resultOf("ls");
