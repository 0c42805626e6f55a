import { execCommand } from "./exec.js";
import { type ExtensionErrorListener, type ExtensionHost, errorText } from "./host.js";
import type { ExtensionRecord, StoredHandler } from "./registry.js";
import type { ExtensionAPI, ToolDefinition } from "./types.js";

export interface ApiBindings {
	host: ExtensionHost;
	report: ExtensionErrorListener;
	/** The path of another loaded extension that already registered this tool name. */
	toolOwner(name: string, except: ExtensionRecord): string | undefined;
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
}

/** The `atomic` object one extension receives; everything it registers goes into `record`. */
export function createExtensionApi(record: ExtensionRecord, bindings: ApiBindings): ExtensionAPI {
	const { host, report } = bindings;
	// The API is fire-and-forget like pi's: a host promise that fails becomes an extension error.
	const settle = (event: string, outcome: void | Promise<void>) => {
		if (outcome instanceof Promise) {
			outcome.catch((error: unknown) => report({ extensionPath: record.path, event, error: errorText(error) }));
		}
	};
	return {
		on(event, handler) {
			if (typeof handler !== "function") throw new TypeError(`on(${String(event)}): the handler must be a function`);
			const list = record.handlers.get(event) ?? [];
			list.push(handler as unknown as StoredHandler);
			record.handlers.set(event, list);
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
		getCommands: () => host.getCommands(),
		setModel: (model) => host.setModel(model),
		exec: (command, args, options) => execCommand(command, args, { ...options, cwd: options?.cwd ?? host.cwd }),
	};
}
