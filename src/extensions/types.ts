import type { Static, TSchema } from "typebox";
import type { AgentToolResult, ToolUpdateCallback } from "../agent/types.js";
import type { ImageContent, Model, TextContent } from "../llm/types.js";
import type { CommandInfo } from "../resources/commands.js";
import type { ExtensionEventMap, ExtensionEventName } from "./events.js";
import type {
	ContextUsage,
	CustomMessageInput,
	ExtensionMode,
	SendMessageOptions,
	SendUserMessageOptions,
} from "./host.js";
import type { ExtensionUiContext } from "./ui-types.js";

/**
 * What every handler, command and tool receives as `ctx` (pi's ExtensionContext names). Members pi
 * has that Atomic cannot honour (sessionManager, modelRegistry, compact, ...) are absent.
 */
export interface ExtensionContext {
	readonly ui: ExtensionUiContext;
	/** True when dialogs reach a user (RPC mode); false in print and json modes. */
	readonly hasUI: boolean;
	readonly mode: ExtensionMode;
	readonly cwd: string;
	readonly model: Model | undefined;
	/** The current run's abort signal, in tool hooks and tools; undefined elsewhere. */
	readonly signal: AbortSignal | undefined;
	isIdle(): boolean;
	abort(): void;
	hasPendingMessages(): boolean;
	getContextUsage(): ContextUsage | undefined;
	/** Asks Atomic to exit gracefully (session_shutdown is emitted first). */
	shutdown(): void;
}

/** Command handlers receive the same context (pi's session-control extras are not available). */
export type ExtensionCommandContext = ExtensionContext;

// biome-ignore lint/suspicious/noConfusingVoidType: a handler may end with a bare `return`
type HandlerReturn<R> = R | undefined | void;

/** A handler for one event; it may be async. Throwing reports an `extension_error`. */
export type ExtensionHandler<E, R = undefined> = (
	event: E,
	ctx: ExtensionContext,
) => HandlerReturn<R> | Promise<HandlerReturn<R>>;

export interface RegisteredCommand {
	description?: string;
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
	parameters: TParams;
	execute(
		toolCallId: string,
		params: Static<TParams>,
		signal: AbortSignal,
		onUpdate: ToolUpdateCallback<TDetails>,
		ctx: ExtensionContext,
	): Promise<AgentToolResult<TDetails>>;
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

/** The object an extension's default export receives (pi's ExtensionAPI names). */
export interface ExtensionAPI {
	on<K extends ExtensionEventName>(
		event: K,
		handler: ExtensionHandler<ExtensionEventMap[K][0], ExtensionEventMap[K][1]>,
	): void;
	registerTool<TParams extends TSchema = TSchema, TDetails = unknown>(tool: ToolDefinition<TParams, TDetails>): void;
	/** Names registered by several extensions become `name:1`, `name:2`, ... in load order. */
	registerCommand(name: string, options: RegisteredCommand): void;
	sendMessage<TDetails = unknown>(message: CustomMessageInput<TDetails>, options?: SendMessageOptions): void;
	sendUserMessage(content: string | (TextContent | ImageContent)[], options?: SendUserMessageOptions): void;
	appendEntry<TData = unknown>(customType: string, data?: TData): void;
	getCommands(): CommandInfo[];
	setModel(model: Model): Promise<boolean>;
	/** Runs a program without a shell. Never rejects: failures to start come back as code 1. */
	exec(command: string, args: string[], options?: ExecOptions): Promise<ExecResult>;
}

/** An extension module's default export. */
export type ExtensionFactory = (atomic: ExtensionAPI) => void | Promise<void>;
