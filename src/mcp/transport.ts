import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type * as Sdk from "./sdk.js";
import { trackServerProcess, untrackServerProcess } from "./server-processes.js";
import type { McpServerConfig } from "./types.js";

export interface OpenedTransport {
	transport: Transport;
	/** Call when the connection has closed (the server process, if any, has ended). */
	onClosed(): void;
}

/**
 * The SDK transport for a server. A stdio server gets the SDK's minimal inherited environment
 * plus its configured `env`, runs in its `cwd` (default: `cwd`), its stderr is passed to
 * `onStderr`, and its process is tracked from its spawn until `onClosed`, so that it is killed if
 * Atomic exits first.
 */
export function openTransport(
	sdk: typeof Sdk,
	config: McpServerConfig,
	cwd: string,
	onStderr: (chunk: string) => void,
): OpenedTransport {
	if (config.transport === "stdio") {
		let pid: number | undefined;
		const Tracked = class extends sdk.StdioClientTransport {
			override async start(): Promise<void> {
				await super.start();
				pid = this.pid ?? undefined;
				if (pid !== undefined) trackServerProcess(pid);
			}
		};
		const transport = new Tracked({
			command: config.command,
			args: config.args,
			env: config.env,
			cwd: config.cwd ?? cwd,
			stderr: "pipe",
		});
		transport.stderr?.on("data", (chunk: Buffer) => onStderr(chunk.toString("utf8")));
		return {
			transport,
			onClosed: () => {
				if (pid !== undefined) untrackServerProcess(pid);
			},
		};
	}
	const requestInit = { headers: config.headers };
	const url = new URL(config.url);
	const transport =
		config.transport === "http"
			? new sdk.StreamableHTTPClientTransport(url, { requestInit })
			: new sdk.SSEClientTransport(url, { requestInit });
	return { transport, onClosed: () => undefined };
}
