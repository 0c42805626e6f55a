import type { AgentTool } from "../../agent/types.js";
import type { McpServerManager } from "../../mcp/manager.js";
import { type McpSetup, mayHaveServers } from "../../mcp/setup.js";
import {
	DEFAULT_MCP_SETTINGS,
	type McpServerConfig,
	type McpServerInfo,
	type McpServerUpdate,
} from "../../mcp/types.js";
import type { CommandInfo } from "../../resources/commands.js";
import { parseTemplateArguments } from "../../resources/prompt-templates.js";
import { parseSlashCommand } from "../../resources/slash-command.js";

export interface McpToolsHost {
	/** Absent: no servers unless some are added later (`add`). */
	setup?: McpSetup;
	env: NodeJS.ProcessEnv;
	/** The `mcp` values of the user's settings.json and of the merged settings (read when MCP loads). */
	settings(): { user: unknown; effective: unknown };
	/** Sends an update to clients (`mcp_server_update`). Must not throw. */
	emit(update: McpServerUpdate): void;
	/** The MCP tools or prompts changed: rebuild the tool list and system prompt. Must not throw. */
	toolsChanged(): Promise<void>;
	warn(message: string): void;
}

declare const __ATOMIC_VERSION__: string | undefined;
const VERSION = typeof __ATOMIC_VERSION__ === "string" ? __ATOMIC_VERSION__ : "dev";

/** `/mcp__...` input names a server prompt. */
const PROMPT_PREFIX = "/mcp__";

/**
 * The session's side of MCP: loads the client (a separate chunk) in the background when servers
 * are configured, never before start-up is done, and offers what the servers have to the session:
 * tools, prompts as commands, their status, and a wait for servers still starting before a model
 * request. Without configuration it loads nothing and every method answers at once.
 */
export class McpTools {
	private manager: McpServerManager | undefined;
	private loading: Promise<McpServerManager | undefined> | undefined;
	private syncing: Promise<void> = Promise.resolve();
	private startupTimeoutMs = DEFAULT_MCP_SETTINGS.startupTimeoutMs;
	private closed = false;
	/** Servers may be configured: MCP loads soon, or at once when something needs it. */
	private readonly configured: boolean;

	constructor(private readonly host: McpToolsHost) {
		this.configured = host.setup !== undefined && mayHaveServers(host.setup);
		// After the current turn of the event loop: start-up (and the first command) never waits for it.
		if (this.configured) setImmediate(() => void this.load());
	}

	/** Starts servers for this session (trusted; e.g. from an ACP client). A name in use is replaced. */
	async add(configs: McpServerConfig[]): Promise<void> {
		const manager = await this.load();
		manager?.add(configs);
	}

	/** Stops these servers and forgets them. */
	async remove(names: string[]): Promise<void> {
		await (await this.loading)?.remove(names);
	}

	/** The tools of the servers, as agent tools (empty until servers connect). */
	tools(): AgentTool[] {
		return this.manager?.tools() ?? [];
	}

	/** Server prompts as `get_commands` entries. */
	commands(): CommandInfo[] {
		return (this.manager?.prompts() ?? []).map((prompt) => {
			const info: CommandInfo = {
				name: prompt.command,
				source: "mcp",
				sourceInfo: { path: `mcp:${prompt.server}`, source: "mcp", scope: "temporary", origin: "top-level" },
			};
			if (prompt.description !== undefined) info.description = prompt.description;
			return info;
		});
	}

	/** Every configured server with its status (waits for the configuration to be read). */
	async servers(): Promise<McpServerInfo[]> {
		return (await this.loaded())?.servers() ?? [];
	}

	/**
	 * Before a model request: waits for servers still starting and for tool list refreshes (at
	 * most `mcp.startupTimeoutMs`; `signal` ends the wait), then for the tool list to be rebuilt.
	 */
	async beforeModelRequest(signal?: AbortSignal): Promise<void> {
		const loading = this.loaded();
		if (!loading || signal?.aborted) return;
		// Reading the configuration is quick; the timeout it sets applies to the servers.
		const manager = await bounded(loading, DEFAULT_MCP_SETTINGS.startupTimeoutMs, signal);
		if (!manager || signal?.aborted) return;
		await bounded(manager.settled(), this.startupTimeoutMs, signal);
		await this.syncing;
	}

	/**
	 * Expands `/mcp__<server>__<prompt> args` into the prompt's text; undefined for any other input.
	 * Throws when the prompt needs an argument that is missing or the server fails.
	 */
	async expand(text: string, signal?: AbortSignal): Promise<string | undefined> {
		if (!text.startsWith(PROMPT_PREFIX) || !this.loaded()) return undefined;
		await this.beforeModelRequest(signal);
		const command = parseSlashCommand(text);
		const manager = this.manager;
		if (!command || !manager?.hasPrompt(command.name)) return undefined;
		return manager.expandPrompt(command.name, parseTemplateArguments(command.args), signal);
	}

	/** Stops every server; stdio server processes end. */
	async close(): Promise<void> {
		this.closed = true;
		await (await this.loading)?.close();
	}

	/** The manager once loaded; undefined when there is nothing to load. */
	private loaded(): Promise<McpServerManager | undefined> | undefined {
		return this.loading ?? (this.configured ? this.load() : undefined);
	}

	private load(): Promise<McpServerManager | undefined> {
		if (this.closed) return Promise.resolve(undefined);
		this.loading ??= this.start().catch((error: unknown) => {
			this.host.warn(`MCP servers could not be started: ${error instanceof Error ? error.message : String(error)}`);
			return undefined;
		});
		return this.loading;
	}

	private async start(): Promise<McpServerManager> {
		const mcp = await import("../../mcp/index.js");
		const { host } = this;
		const raw = host.settings();
		const { settings, errors } = mcp.readMcpSettings(raw.user, raw.effective);
		for (const error of errors) host.warn(error);
		this.startupTimeoutMs = settings.startupTimeoutMs;
		const manager = new mcp.McpServerManager({
			cwd: host.setup?.cwd ?? process.cwd(),
			startupTimeoutMs: settings.startupTimeoutMs,
			toolTimeoutMs: settings.toolTimeoutMs,
			clientVersion: VERSION,
			onUpdate: (update) => host.emit(update),
			onToolsChanged: () => {
				this.syncing = host.toolsChanged();
			},
			log: (server, line) => process.stderr.write(`[mcp ${server}] ${line}\n`),
		});
		this.manager = manager;
		const setup = host.setup;
		if (setup?.enabled && !this.closed) {
			const found = await mcp.collectServers(setup, settings, host.env);
			for (const error of found.errors) host.warn(error);
			if (!this.closed) {
				manager.add(found.start);
				manager.add(found.skip, { skip: true });
			}
		}
		return manager;
	}
}

/** `work`'s value, or undefined once `timeoutMs` passed or `signal` aborted, whichever comes first. */
async function bounded<T>(work: Promise<T>, timeoutMs: number, signal?: AbortSignal): Promise<T | undefined> {
	let timer: NodeJS.Timeout | undefined;
	let onAbort: (() => void) | undefined;
	const stop = new Promise<undefined>((resolve) => {
		timer = setTimeout(() => resolve(undefined), timeoutMs);
		onAbort = () => resolve(undefined);
		signal?.addEventListener("abort", onAbort, { once: true });
	});
	try {
		return await Promise.race([work, stop]);
	} finally {
		clearTimeout(timer);
		if (onAbort) signal?.removeEventListener("abort", onAbort);
	}
}
