/** How Atomic talks to a server: a child process over stdio, streamable HTTP, or HTTP with SSE. */
export type McpTransportKind = "stdio" | "http" | "sse";

/**
 * Where a server's configuration came from: the user's `<agent dir>/mcp.json`, a `--mcp-config`
 * file, the project's `.mcp.json`, or an ACP client (passed in memory). All but "project" are trusted.
 */
export type McpSource = "user" | "cli" | "project" | "acp";

/**
 * `starting`: connecting and listing tools; `connected`: its tools are offered; `failed`: it could
 * not start, exited or broke (its error says why); `closed`: stopped by Atomic; `skipped`: a project
 * server that was not started because settings do not allow project servers.
 */
export type McpServerStatus = "starting" | "connected" | "failed" | "closed" | "skipped";

export interface StdioServerTarget {
	transport: "stdio";
	command: string;
	args: string[];
	/** Added to the minimal inherited environment (HOME, PATH, SHELL, TERM, USER, LOGNAME). */
	env: Record<string, string>;
	/** Absolute; absent: the session's working directory. */
	cwd?: string;
}

export interface RemoteServerTarget {
	transport: "http" | "sse";
	url: string;
	headers: Record<string, string>;
}

/** One server, ready to start: variables expanded, paths resolved. */
export type McpServerConfig = {
	/** Only `[A-Za-z0-9_-]`. */
	name: string;
	source: McpSource;
	/** The file it was read from (absent for in-memory configurations). */
	file?: string;
} & (StdioServerTarget | RemoteServerTarget);

/** What `get_mcp_servers` reports for one server. */
export interface McpServerInfo {
	name: string;
	status: McpServerStatus;
	transport: McpTransportKind;
	source: McpSource;
	/** The agent tool names it offers (`mcp__<server>__<tool>`). */
	tools: string[];
	error?: string;
}

/** Sent on every change of a server's status or tool list. */
export type McpServerUpdate = {
	type: "mcp_server_update";
	name: string;
	status: McpServerStatus;
	/** How many tools it offers now. */
	tools: number;
	error?: string;
};

/** One argument of a server prompt. */
export interface McpPromptArgument {
	name: string;
	description?: string;
	required?: boolean;
}

/** A server prompt, usable as the command `/mcp__<server>__<prompt> args`. */
export interface McpPromptInfo {
	/** The command name, without the slash. */
	command: string;
	server: string;
	prompt: string;
	description?: string;
	arguments: McpPromptArgument[];
}

/** `mcp` in settings.json, with defaults applied. */
export interface McpSettings {
	/** Whether the project's `.mcp.json` servers start; read from the user's settings only. */
	projectServers: "allow" | "deny";
	/** How long a server may take to connect and list its tools (ms). */
	startupTimeoutMs: number;
	/** How long one tool call may take (ms). */
	toolTimeoutMs: number;
}

export const DEFAULT_MCP_SETTINGS: McpSettings = {
	projectServers: "deny",
	startupTimeoutMs: 10_000,
	toolTimeoutMs: 120_000,
};
