import { unavailableApiMembers } from "./api-stubs.js";
import { execCommand } from "./exec.js";
import { type ExtensionErrorListener, type ExtensionHost, errorText } from "./host.js";
import type { ExtensionRecord, StoredHandler } from "./registry.js";
import type { EventBus, ExtensionAPI, FlagOptions, ToolDefinition, ToolInfo } from "./types.js";

export interface ApiBindings {
	host: ExtensionHost;
	report: ExtensionErrorListener;
	/** The path of another loaded extension that already registered this tool name. */
	toolOwner(name: string, except: ExtensionRecord): string | undefined;
	/** The channel every extension shares. */
	events: EventBus;
	/** The names of the tools offered to the model, and setting them (unknown names are ignored). */
	activeToolNames(): string[];
	setActiveTools(names: string[]): void;
	allTools(): ToolInfo[];
	/** Called after a tool was registered (it becomes active; the session's tool list is recomputed). */
	toolRegistered(name: string): void;
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null;
}

function checkTool(tool: unknown): asserts tool is ToolDefinition {
	if (!isRecord(tool)) throw new TypeError("registerTool expects a tool definition object");
	if (typeof tool.name !== "string" || !tool.name)
		throw new TypeError("registerTool: `name` must be a non-empty string");
	if (typeof tool.description !== "string")
		throw new TypeError(`registerTool(${tool.name}): \`description\` must be a string`);
	if (!isRecord(tool.parameters))
		throw new TypeError(`registerTool(${tool.name}): \`parameters\` must be a TypeBox schema`);
	if (typeof tool.execute !== "function")
		throw new TypeError(`registerTool(${tool.name}): \`execute\` must be a function`);
	if (
		tool.promptGuidelines !== undefined &&
		!(Array.isArray(tool.promptGuidelines) && tool.promptGuidelines.every((line) => typeof line === "string"))
	)
		throw new TypeError(`registerTool(${tool.name}): \`promptGuidelines\` must be an array of strings`);
	if (tool.readOnly !== undefined && typeof tool.readOnly !== "boolean")
		throw new TypeError(`registerTool(${tool.name}): \`readOnly\` must be a boolean`);
	if (tool.promptSnippet !== undefined && typeof tool.promptSnippet !== "string")
		throw new TypeError(`registerTool(${tool.name}): \`promptSnippet\` must be a string`);
}

function checkFlag(name: unknown, options: unknown): asserts options is FlagOptions {
	if (typeof name !== "string" || !name) throw new TypeError("registerFlag: the name must be a non-empty string");
	if (!isRecord(options) || (options.type !== "boolean" && options.type !== "string"))
		throw new TypeError(`registerFlag(${name}): \`type\` must be "boolean" or "string"`);
}

/** Accepted and kept nowhere: terminal renderers and shortcuts have nothing to draw on. */
function accepted(): void {
	// Nothing to do without a terminal.
}

/** The `pi` object one extension receives; everything it registers goes into `record`. */
export function createExtensionApi(record: ExtensionRecord, bindings: ApiBindings): ExtensionAPI {
	const { host, report } = bindings;
	// The API is fire-and-forget like pi's: a host promise that fails becomes an extension error.
	const settle = (event: string, outcome: void | Promise<void>) => {
		if (outcome instanceof Promise) {
			outcome.catch((error: unknown) => report({ extensionPath: record.path, event, error: errorText(error) }));
		}
	};
	const api: ExtensionAPI = {
		...unavailableApiMembers(record.path, report),
		on(event, handler) {
			if (typeof handler !== "function") throw new TypeError(`on(${String(event)}): the handler must be a function`);
			const stored = handler as unknown as StoredHandler;
			const list = record.handlers.get(event) ?? [];
			list.push(stored);
			record.handlers.set(event, list);
			return () => {
				const current = record.handlers.get(event) ?? [];
				const index = current.indexOf(stored);
				if (index >= 0) record.handlers.set(event, [...current.slice(0, index), ...current.slice(index + 1)]);
			};
		},
		registerTool(tool) {
			checkTool(tool);
			const owner = bindings.toolOwner(tool.name, record);
			if (owner !== undefined) {
				report({
					extensionPath: record.path,
					event: "registerTool",
					error: `Tool "${tool.name}" is already registered by ${owner}`,
				});
				return;
			}
			record.tools.set(tool.name, tool as unknown as ToolDefinition);
			bindings.toolRegistered(tool.name);
		},
		registerCommand(name, options) {
			if (typeof name !== "string" || !/^[^\s/][^\s]*$/.test(name))
				throw new TypeError(`registerCommand: invalid command name ${JSON.stringify(name)}`);
			if (!isRecord(options) || typeof options.handler !== "function")
				throw new TypeError(`registerCommand(${name}): \`handler\` must be a function`);
			record.commands.set(name, options);
		},
		sendMessage: (message, options) => settle("sendMessage", host.sendMessage(message, options)),
		sendUserMessage: (content, options) => settle("sendUserMessage", host.sendUserMessage(content, options)),
		appendEntry: (customType, data) => host.appendEntry(customType, data),
		setSessionName: (name) => host.setSessionName(name),
		getSessionName: () => host.session.name,
		setLabel: (entryId, label) => host.setLabel(entryId, label),
		getCommands: () => host.getCommands(),
		setModel: (model) => host.setModel(model),
		getThinkingLevel: () => host.thinkingLevel,
		setThinkingLevel: (level) => host.setThinkingLevel(level),
		getActiveTools: () => bindings.activeToolNames(),
		getAllTools: () => bindings.allTools(),
		setActiveTools: (names) => {
			if (!Array.isArray(names) || !names.every((name) => typeof name === "string"))
				throw new TypeError("setActiveTools expects an array of tool names");
			bindings.setActiveTools(names);
		},
		getSettings: () => host.settings(),
		exec: (command, args, options) =>
			execCommand(command, args, { ...options, cwd: options?.cwd ?? host.cwd, env: host.commandEnv }),
		registerFlag(name, options) {
			checkFlag(name, options);
			record.flags.set(name, options);
		},
		getFlag: (name) => record.flags.get(name)?.default,
		registerShortcut: accepted,
		registerMessageRenderer: accepted,
		registerEntryRenderer: accepted,
		registerToolRenderer: accepted,
		registerMarkdownTransformer: accepted,
		events: bindings.events,
	};
	return api;
}
