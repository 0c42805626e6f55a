import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AgentTool } from "../agent/types.js";
import type { McpConnection } from "./connection.js";
import { toToolResult } from "./content.js";

/**
 * The agent tool name of a server's tool: `mcp__<server>__<tool>`, with every character a provider
 * would refuse in a tool name (anything but letters, digits, `_` and `-`) replaced by `_`.
 */
export function agentToolName(server: string, tool: string): string {
	return `mcp__${server}__${tool.replace(/[^A-Za-z0-9_-]/g, "_")}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function toAgentTool(connection: McpConnection, tool: Tool, name: string): AgentTool {
	const server = connection.name;
	const agentTool: AgentTool = {
		name,
		label: tool.title ?? tool.annotations?.title ?? tool.name,
		description: tool.description ?? `The tool "${tool.name}" of the MCP server "${server}".`,
		// Passed through unchanged: the model sees the server's own schema, and calls are checked against it.
		parameters: tool.inputSchema,
		execute: async (_toolCallId, args, signal) => {
			const outcome = await connection.call(tool.name, isRecord(args) ? args : {}, signal);
			return toToolResult(outcome, { server, tool: tool.name });
		},
	};
	// Tool approvals let a tool run without asking only when the server says it changes nothing.
	if (tool.annotations?.readOnlyHint === true) agentTool.readOnly = true;
	return agentTool;
}

/** A server's tools as agent tools; a second tool whose name maps to the same agent name is left out. */
export function agentToolsOf(connection: McpConnection): AgentTool[] {
	const tools: AgentTool[] = [];
	const names = new Set<string>();
	for (const tool of connection.tools) {
		const name = agentToolName(connection.name, tool.name);
		if (names.has(name)) continue;
		names.add(name);
		tools.push(toAgentTool(connection, tool, name));
	}
	return tools;
}
