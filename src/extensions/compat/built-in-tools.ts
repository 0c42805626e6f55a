// pi's built-in tool factories, for extensions that wrap or re-register a built-in tool: each
// returns Atomic's own tool for the given working directory.
import type { AgentTool, AgentToolResult, ToolUpdateCallback } from "../../agent/types.js";
import {
	createBashTool as bashTool,
	createEditTool as editTool,
	createFindTool as findTool,
	createGrepTool as grepTool,
	createLsTool as lsTool,
	createReadTool as readTool,
	createWriteTool as writeTool,
} from "../../tools/index.js";
import type { ToolDefinition } from "../types.js";

type Factory = (options: { cwd: string }) => AgentTool;

function agentToolFactory(factory: Factory) {
	return (cwd: string): AgentTool => factory({ cwd });
}

/** The tool as an extension tool definition: `execute` accepts pi's optional signal and onUpdate. */
function definitionFactory(factory: Factory) {
	return (cwd: string): ToolDefinition => {
		const tool = factory({ cwd });
		return {
			name: tool.name,
			label: tool.label ?? tool.name,
			description: tool.description,
			parameters: tool.parameters,
			execute: (
				toolCallId: string,
				params: unknown,
				signal?: AbortSignal,
				onUpdate?: ToolUpdateCallback,
			): Promise<AgentToolResult> =>
				tool.execute(toolCallId, params, signal ?? new AbortController().signal, onUpdate ?? (() => undefined)),
		};
	};
}

export const createReadTool = agentToolFactory(readTool);
export const createBashTool = agentToolFactory(bashTool);
export const createEditTool = agentToolFactory(editTool);
export const createWriteTool = agentToolFactory(writeTool);
export const createGrepTool = agentToolFactory(grepTool);
export const createFindTool = agentToolFactory(findTool);
export const createLsTool = agentToolFactory(lsTool);
export const createReadToolDefinition = definitionFactory(readTool);
export const createBashToolDefinition = definitionFactory(bashTool);
export const createEditToolDefinition = definitionFactory(editTool);
export const createWriteToolDefinition = definitionFactory(writeTool);
export const createGrepToolDefinition = definitionFactory(grepTool);
export const createFindToolDefinition = definitionFactory(findTool);
export const createLsToolDefinition = definitionFactory(lsTool);
