/** An McpServerManager for in-process tests, with its updates recorded and a wait on them. */
import { tmpdir } from "node:os";
import { type McpManagerOptions, McpServerManager } from "../../src/mcp/manager.js";
import type { McpServerConfig, McpServerUpdate } from "../../src/mcp/types.js";
import { type StdioServerOptions, stdioServerEntry } from "../support/mcp-stdio.js";

export interface ManagerHarness {
	manager: McpServerManager;
	updates: McpServerUpdate[];
	/** Lines the servers wrote to stderr (and logged problems), as `server: line`. */
	logs: string[];
	/** How often the tools or prompts on offer changed. */
	toolChanges(): number;
	/** Resolves with the first update (seen or to come) from `start` on that matches. */
	waitForUpdate(predicate: (update: McpServerUpdate) => boolean, start?: number): Promise<McpServerUpdate>;
}

export function createManager(options: Partial<McpManagerOptions> = {}): ManagerHarness {
	const updates: McpServerUpdate[] = [];
	const logs: string[] = [];
	const waiters = new Set<() => void>();
	let changes = 0;
	const manager = new McpServerManager({
		cwd: tmpdir(),
		startupTimeoutMs: 20_000,
		toolTimeoutMs: 20_000,
		clientVersion: "test",
		onUpdate: (update) => {
			updates.push(update);
			for (const waiter of [...waiters]) waiter();
		},
		onToolsChanged: () => {
			changes++;
		},
		log: (server, line) => logs.push(`${server}: ${line}`),
		...options,
	});
	const waitForUpdate = (predicate: (update: McpServerUpdate) => boolean, start = 0) =>
		new Promise<McpServerUpdate>((resolve, reject) => {
			const check = () => {
				const found = updates.slice(start).find(predicate);
				if (!found) return;
				done();
				resolve(found);
			};
			const timer = setTimeout(() => {
				done();
				reject(new Error(`no such update; seen: ${JSON.stringify(updates)}; logs: ${logs.join(" | ")}`));
			}, 20_000);
			const done = () => {
				clearTimeout(timer);
				waiters.delete(check);
			};
			waiters.add(check);
			check();
		});
	return { manager, updates, logs, toolChanges: () => changes, waitForUpdate };
}

/** A stdio configuration of the test server. */
export async function stdioConfig(name: string, options: StdioServerOptions = {}): Promise<McpServerConfig> {
	const entry = await stdioServerEntry(options);
	return { name, source: "user", transport: "stdio", command: entry.command, args: entry.args, env: {} };
}
