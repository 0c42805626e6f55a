import { existsSync } from "node:fs";
import { join } from "node:path";
import type { McpServerConfig } from "./types.js";

/** Where a session's MCP servers come from. Imported at start-up: it loads nothing else. */
export interface McpSetup {
	/** False (`--no-mcp`): no server is started, whatever is configured. */
	enabled: boolean;
	agentDir: string;
	/** The working directory: the project's `.mcp.json` is read from here, stdio servers run here. */
	cwd: string;
	/** `--mcp-config` files, in order (relative to `cwd`); a later file's server replaces an earlier one's. */
	configFiles: string[];
	/** Servers passed in memory (trusted, e.g. by an ACP client). */
	servers?: McpServerConfig[];
}

/** The user's servers. */
export function userConfigPath(agentDir: string): string {
	return join(agentDir, "mcp.json");
}

/** The project's servers (trusted only when settings allow project servers). */
export function projectConfigPath(cwd: string): string {
	return join(cwd, ".mcp.json");
}

/** Whether any server may be configured: two stats at most, so that start-up can skip MCP entirely. */
export function mayHaveServers(setup: McpSetup): boolean {
	if (!setup.enabled) return false;
	if (setup.configFiles.length > 0 || (setup.servers?.length ?? 0) > 0) return true;
	return existsSync(userConfigPath(setup.agentDir)) || existsSync(projectConfigPath(setup.cwd));
}
