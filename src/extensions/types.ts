import type { Static, TSchema } from "typebox";
import type { AgentToolResult, ToolUpdateCallback } from "../agent/types.js";
import type { ImageContent, Model, TextContent, ThinkingLevel } from "../llm/types.js";
import type { CommandInfo } from "../resources/commands.js";
import type { SourceInfo } from "../resources/source-info.js";
import type { ExtensionCommandContext, ExtensionContext, ExtensionToolContext } from "./context-types.js";
import type { ExtensionEventMap, ExtensionEventName } from "./events.js";
import type { CustomMessageInput, SendMessageOptions, SendUserMessageOptions } from "./host.js";

export type * from "./context-types.js";

// biome-ignore lint/suspicious/noConfusingVoidType: a handler may end with a bare `return`
type HandlerReturn<R> = R | undefined | void;

/** A handler for one event; it may be async. Throwing reports an `extension_error`. */
export type ExtensionHandler<E, R = undefined> = (
	event: E,
	ctx: ExtensionContext,
) => HandlerReturn<R> | Promise<HandlerReturn<R>>;

export interface AutocompleteItem {
	value: string;
	label: string;
	description?: string;
}

export interface RegisteredCommand {
	description?: string;
	/** Accepted for pi compatibility; Atomic offers no completions to clients. */
	getArgumentCompletions?: (prefix: string) => AutocompleteItem[] | null | Promise<AutocompleteItem[] | null>;
	/** Receives everything after `/name`, trimmed. Throwing reports an `extension_error`. */
	handler(args: string, ctx: ExtensionCommandContext): void | Promise<void>;
}

/**
 * A tool the model can call (`pi.registerTool`). `execute` receives arguments validated against
 * `parameters` (a TypeBox schema). Throwing makes an error result with the message (normal tool
 * behaviour, not an extension error); returning `isError: true` does the same without throwing.
 */
export interface ToolDefinition<TParams extends TSchema = TSchema, TDetails = unknown> {
	name: string;
	label?: string;
	description: string;
	/** The tool's line in the system prompt's tool list (default: the description's first sentence). */
	promptSnippet?: string;
	/** Bullets added to the system prompt's guidelines while the tool is active. */
	promptGuidelines?: string[];
	parameters: TParams;
	/** Rewrites raw arguments before validation (e.g. a renamed field). May throw: the call fails. */
	prepareArguments?: (args: unknown) => Static<TParams>;
	/** "sequential": a batch with this tool runs one call at a time. */
	executionMode?: "sequential" | "parallel";
	/**
	 * The tool never changes anything (files, processes, the outside world): approval modes `ask`
	 * and `read-only` run it without asking, as they run `read`. Default false.
	 */
	readOnly?: boolean;
	execute(
		toolCallId: string,
		params: Static<TParams>,
		signal: AbortSignal,
		onUpdate: ToolUpdateCallback<TDetails>,
		ctx: ExtensionToolContext,
	): Promise<AgentToolResult<TDetails>>;
	/** Terminal renderers: accepted and never called (a client draws tool calls itself). */
	renderCall?: (...args: never[]) => unknown;
	renderResult?: (...args: never[]) => unknown;
	renderShell?: "default" | "self";
}

export interface ExecOptions {
	signal?: AbortSignal;
	/** Milliseconds before the process is killed (`killed: true`). */
	timeout?: number;
	/** Default: the session's cwd. */
	cwd?: string;
}

export interface ExecResult {
	stdout: string;
	stderr: string;
	/** The exit code; 1 when the process could not start or died of a signal. */
	code: number;
	/** True when the timeout or the signal ended it. */
	killed: boolean;
}

/** What `pi.getAllTools()` lists for each tool. */
export interface ToolInfo {
	name: string;
	description: string;
	parameters: TSchema;
	promptGuidelines?: string[];
	exposure: "direct";
	sourceInfo: SourceInfo;
}

export type FlagValue = boolean | string;

export interface FlagOptions {
	description?: string;
	type: "boolean" | "string";
	default?: FlagValue;
}

/** A shared channel between extensions (`pi.events`). */
export interface EventBus {
	/** Returns the function that unsubscribes. */
	on(channel: string, handler: (data: unknown) => unknown): () => void;
	emit(channel: string, data?: unknown): void;
}

/** The object an extension's default export receives (pi's ExtensionAPI). */
export interface ExtensionAPI {
	/** Returns the function that removes this one registration. */
	on<K extends ExtensionEventName>(
		event: K,
		handler: ExtensionHandler<ExtensionEventMap[K][0], ExtensionEventMap[K][1]>,
	): () => void;
	registerTool<TParams extends TSchema = TSchema, TDetails = unknown>(tool: ToolDefinition<TParams, TDetails>): void;
	/** Names registered by several extensions become `name:1`, `name:2`, ... in load order. */
	registerCommand(name: string, options: RegisteredCommand): void;
	sendMessage<TDetails = unknown>(message: CustomMessageInput<TDetails>, options?: SendMessageOptions): void;
	sendUserMessage(content: string | (TextContent | ImageContent)[], options?: SendUserMessageOptions): void;
	appendEntry<TData = unknown>(customType: string, data?: TData): void;
	setSessionName(name: string): void;
	getSessionName(): string | undefined;
	/** Sets or (with undefined) clears an entry's label. */
	setLabel(entryId: string, label: string | undefined): void;
	getCommands(): CommandInfo[];
	setModel(model: Model): Promise<boolean>;
	getThinkingLevel(): ThinkingLevel;
	/** Clamped to the model, like the RPC command. */
	setThinkingLevel(level: ThinkingLevel): void;
	/** The names of the tools the model is offered. */
	getActiveTools(): string[];
	getAllTools(): ToolInfo[];
	/** Offers only these tools to the model from the next call on (unknown names are ignored). */
	setActiveTools(toolNames: string[]): void;
	/** A copy of the merged settings.json values. */
	getSettings(): Record<string, unknown>;
	/** Runs a program without a shell. Never rejects: failures to start come back as code 1. */
	exec(command: string, args: string[], options?: ExecOptions): Promise<ExecResult>;
	/** Declares a flag; Atomic has no extension CLI flags, so `getFlag` returns its default. */
	registerFlag(name: string, options: FlagOptions): void;
	getFlag(name: string): FlagValue | undefined;
	/** Keyboard shortcuts: accepted and never triggered (no terminal). */
	registerShortcut(
		shortcut: string,
		options: { description?: string; handler: (ctx: ExtensionContext) => unknown },
	): void;
	/** Terminal renderers: accepted and never called (clients render messages and tools). */
	registerMessageRenderer(customType: string, renderer: (...args: never[]) => unknown): void;
	registerEntryRenderer(customType: string, renderer: (...args: never[]) => unknown): void;
	registerToolRenderer(resolver: (...args: never[]) => unknown): void;
	registerMarkdownTransformer(transformer: (markdown: string, context: never) => string, options?: unknown): void;
	readonly events: EventBus;
	/** pi's members Atomic does not offer are present and throw (or report) a named error. */
	[member: string]: unknown;
}

/** An extension module's default export. */
export type ExtensionFactory = (atomic: ExtensionAPI) => void | Promise<void>;
