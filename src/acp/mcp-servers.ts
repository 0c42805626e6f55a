import type { McpServer } from "@agentclientprotocol/sdk";
import type { McpServerConfig } from "../mcp/types.js";

function record(pairs: readonly { name: string; value: string }[]): Record<string, string> {
	return Object.fromEntries(pairs.map((pair) => [pair.name, pair.value]));
}

/** A server name as Atomic's tool names need it (`[A-Za-z0-9_-]`), unique among `taken`. */
function serverName(name: string, taken: Set<string>): string {
	const base = name.replace(/[^A-Za-z0-9_-]+/g, "_").replace(/^_+|_+$/g, "") || "server";
	let unique = base;
	for (let index = 2; taken.has(unique); index++) unique = `${base}_${index}`;
	taken.add(unique);
	return unique;
}

/**
 * The MCP servers an editor gave with `session/new` or `session/load`, as Atomic starts them:
 * source "acp" (trusted: the editor chose them), stdio, streamable HTTP or SSE.
 */
export function mcpServerConfigs(servers: readonly McpServer[]): McpServerConfig[] {
	const taken = new Set<string>();
	return servers.map((server): McpServerConfig => {
		const name = serverName(server.name, taken);
		if ("type" in server && (server.type === "http" || server.type === "sse")) {
			return { name, source: "acp", transport: server.type, url: server.url, headers: record(server.headers) };
		}
		return {
			name,
			source: "acp",
			transport: "stdio",
			command: server.command,
			args: server.args,
			env: record(server.env),
		};
	});
}
