import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AgentTool } from "../agent/types.js";
import { type ConnectionOptions, McpConnection } from "./connection.js";
import { promptText } from "./content.js";
import { promptArguments, promptsOf } from "./prompts.js";
import { agentToolName, agentToolsOf } from "./tools.js";
import type { McpPromptInfo, McpServerConfig, McpServerInfo, McpServerUpdate } from "./types.js";

export interface McpManagerOptions extends Omit<ConnectionOptions, "onChange"> {
	/** A server's status, error or tool list changed. Must not throw. */
	onUpdate(update: McpServerUpdate): void;
	/** The tools or prompts on offer changed (read them again with `tools()` / `prompts()`). Must not throw. */
	onToolsChanged(): void;
}

/** A server's tools are offered while it is known to have them: connected, or failed / restarting after it was. */
function offers(connection: McpConnection): boolean {
	return connection.status !== "closed" && connection.status !== "skipped";
}

/**
 * The MCP servers of one session: starts each in the background, keeps one connection per
 * server, offers their tools as agent tools and their prompts as commands, and reports every
 * change. Servers can be added and removed at any time (an ACP session passes its own).
 */
export class McpServerManager {
	private readonly connections = new Map<string, McpConnection>();
	/** The last update sent per server, to send only changes. */
	private readonly sent = new Map<string, string>();
	/** What each server offered at the last change: its tools array, or undefined. */
	private readonly offered = new Map<McpConnection, Tool[] | undefined>();
	private readonly converted = new WeakMap<Tool[], AgentTool[]>();

	constructor(private readonly options: McpManagerOptions) {}

	/**
	 * Adds servers and starts them in the background (`skip`: listed as skipped, not started). A
	 * server whose name is taken replaces the one there, which is closed.
	 */
	add(configs: McpServerConfig[], options: { skip?: boolean } = {}): void {
		for (const config of configs) {
			const previous = this.connections.get(config.name);
			if (previous) void this.closeOne(previous);
			const connection = new McpConnection(
				config,
				{ ...this.options, onChange: (changed) => this.changed(changed) },
				options.skip,
			);
			this.connections.set(config.name, connection);
			this.changed(connection);
			void connection.start();
		}
	}

	/** Stops these servers and forgets them. */
	async remove(names: string[]): Promise<void> {
		const closing: Promise<void>[] = [];
		for (const name of names) {
			const connection = this.connections.get(name);
			if (!connection) continue;
			closing.push(this.closeOne(connection));
			this.connections.delete(name);
		}
		await Promise.all(closing);
	}

	/** Stops every server (stdio processes end); they stay listed as closed. */
	async close(): Promise<void> {
		await Promise.all([...this.connections.values()].map((connection) => this.closeOne(connection)));
	}

	/** Resolves once no server is starting and no list refresh is in flight. Never rejects. */
	async settled(): Promise<void> {
		await Promise.all([...this.connections.values()].map((connection) => connection.settled()));
	}

	get size(): number {
		return this.connections.size;
	}

	servers(): McpServerInfo[] {
		return [...this.connections.values()].map((connection) => {
			const info: McpServerInfo = {
				name: connection.name,
				status: connection.status,
				transport: connection.config.transport,
				source: connection.config.source,
				tools: offers(connection) ? this.toolsOf(connection).map((tool) => tool.name) : [],
			};
			if (connection.error !== undefined) info.error = connection.error;
			return info;
		});
	}

	/** The tools on offer, server by server. */
	tools(): AgentTool[] {
		return [...this.connections.values()].filter(offers).flatMap((connection) => this.toolsOf(connection));
	}

	/** The prompts of connected servers. */
	prompts(): McpPromptInfo[] {
		return [...this.connections.values()]
			.filter((connection) => connection.status === "connected")
			.flatMap((connection) => promptsOf(connection));
	}

	/** Whether `name` (a command name without the slash) is a server prompt. */
	hasPrompt(name: string): boolean {
		return this.findPrompt(name) !== undefined;
	}

	/**
	 * Gets the prompt `name` with positional arguments and returns its messages as one text.
	 * Throws when it is not a known prompt, an argument is missing or the server fails.
	 */
	async expandPrompt(name: string, words: string[], signal?: AbortSignal): Promise<string> {
		const found = this.findPrompt(name);
		if (!found) throw new Error(`/${name} is not a prompt of a connected MCP server`);
		const args = promptArguments(found.info, words);
		return promptText(await found.connection.getPrompt(found.info.prompt, args, signal));
	}

	private findPrompt(name: string): { connection: McpConnection; info: McpPromptInfo } | undefined {
		for (const connection of this.connections.values()) {
			if (connection.status !== "connected" || !name.startsWith(agentToolName(connection.name, ""))) continue;
			const info = promptsOf(connection).find((prompt) => prompt.command === name);
			if (info) return { connection, info };
		}
		return undefined;
	}

	private toolsOf(connection: McpConnection): AgentTool[] {
		let tools = this.converted.get(connection.tools);
		if (!tools) {
			tools = agentToolsOf(connection);
			this.converted.set(connection.tools, tools);
		}
		return tools;
	}

	private async closeOne(connection: McpConnection): Promise<void> {
		await connection.close();
		this.offered.delete(connection);
	}

	private changed(connection: McpConnection): void {
		if (this.connections.get(connection.name) !== connection) return;
		const update: McpServerUpdate = {
			type: "mcp_server_update",
			name: connection.name,
			status: connection.status,
			tools: offers(connection) ? this.toolsOf(connection).length : 0,
		};
		if (connection.error !== undefined) update.error = connection.error;
		const key = JSON.stringify([update, offers(connection) ? this.toolsOf(connection).map((tool) => tool.name) : []]);
		if (this.sent.get(connection.name) !== key) {
			this.sent.set(connection.name, key);
			this.options.onUpdate(update);
		}
		const offered = offers(connection) ? connection.tools : undefined;
		if (this.offered.get(connection) !== offered || connection.status === "connected") {
			this.offered.set(connection, offered);
			this.options.onToolsChanged();
		}
	}
}
