/** TypeBox schemas of what the RPC protocol says about MCP servers (`get_mcp_servers`, `mcp_server_update`). */
import { Type } from "../../llm/schema-builders.js";
import { Count } from "./types.js";

const McpServerStatus = Type.Enum(["starting", "connected", "failed", "closed", "skipped"], {
	description:
		"skipped: a project server not started because settings.json does not allow project servers; closed: stopped by Atomic",
});

const McpServerInfo = Type.Object({
	name: Type.String(),
	status: Type.Ref("McpServerStatus"),
	transport: Type.Enum(["stdio", "http", "sse"]),
	source: Type.Enum(["user", "cli", "project", "acp"], {
		description: "<agent dir>/mcp.json, --mcp-config, the project's .mcp.json, or an ACP client",
	}),
	tools: Type.Array(Type.String(), { description: "The agent tool names it offers (mcp__<server>__<tool>)" }),
	error: Type.Optional(Type.String({ description: "Why it failed" })),
});

/** Shared definitions, by `$defs` name. */
export const MCP_TYPES = { McpServerStatus, McpServerInfo };

/** The fields of the `mcp_server_update` event. */
export const McpServerUpdateFields = {
	name: Type.String(),
	status: Type.Ref("McpServerStatus"),
	tools: Count,
	error: Type.Optional(Type.String()),
};
