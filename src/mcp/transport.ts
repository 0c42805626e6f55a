import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type * as Sdk from "./sdk.js";
import type { McpServerConfig } from "./types.js";

export interface OpenedTransport {
	transport: Transport;
	/** Why the connection is gone, once it closed by itself: `the server process exited (exit code 1)`. */
	closedReason(): string;
}

/**
 * The transport for a server: a child process for stdio (the SDK's minimal inherited environment
 * plus the configured `env`, in its `cwd`, default `cwd`; stderr goes to `onStderr`), the SDK's
 * streamable HTTP or SSE client for the others, with the configured headers on every request.
 */
export function openTransport(
	sdk: typeof Sdk,
	config: McpServerConfig,
	cwd: string,
	onStderr: (chunk: string) => void,
): OpenedTransport {
	if (config.transport === "stdio") {
		const transport = new sdk.ProcessTransport({
			command: config.command,
			args: config.args,
			env: config.env,
			cwd: config.cwd ?? cwd,
			onStderr,
		});
		return {
			transport,
			closedReason: () => `the server process exited${transport.exit ? ` (${transport.exit})` : ""}`,
		};
	}
	const requestInit = { headers: config.headers };
	const url = new URL(config.url);
	const transport =
		config.transport === "http"
			? new sdk.StreamableHTTPClientTransport(url, { requestInit })
			: new sdk.SSEClientTransport(url, { requestInit });
	return { transport, closedReason: () => "the connection closed" };
}
