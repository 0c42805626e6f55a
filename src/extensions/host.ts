import type { AgentTool } from "../agent/types.js";
import type { CompactionResult } from "../compaction/result.js";
import type { ModelRegistry } from "../llm/model-registry.js";
import type { ImageContent, Model, TextContent, ThinkingLevel } from "../llm/types.js";
import type { CommandInfo } from "../resources/commands.js";
import type { Session } from "../session/session.js";

/** How Atomic runs: extensions read it as `ctx.mode`. */
export type ExtensionMode = "rpc" | "acp" | "print" | "json";

/** How full the model's context window is (the same shape as the runtime's session stats). */
export interface ContextUsage {
	/** Null right after a compaction, until a reply reports fresh usage. */
	tokens: number | null;
	contextWindow: number;
	percent: number | null;
}

/** A custom message an extension adds to the conversation (`pi.sendMessage`). */
export interface CustomMessageInput<TDetails = unknown> {
	customType: string;
	content: string | (TextContent | ImageContent)[];
	/** Whether clients should show it. */
	display: boolean;
	details?: TDetails;
}

export interface SendMessageOptions {
	/** When the agent is idle: start a turn with the message (ignored for "nextTurn"). */
	triggerTurn?: boolean;
	/** Default "steer": delivered after the current turn's tools; "nextTurn" waits for the next prompt. */
	deliverAs?: "steer" | "followUp" | "nextTurn";
}

export interface SendUserMessageOptions {
	/** Required while the agent is streaming; ignored when idle. */
	deliverAs?: "steer" | "followUp";
}

/**
 * What the extension API needs from the runtime. The runtime (AgentSession) implements it; this
 * layer never imports the runtime. Every member is read or called at the moment an extension uses
 * it, so getters may return live values (the cwd and model change with the session).
 *
 * Errors: a method may throw synchronously when the request is invalid now (e.g. sendUserMessage
 * while streaming without `deliverAs`); the throw reaches the calling extension code. A returned
 * promise that rejects is reported as an `extension_error` (the extension API is fire-and-forget).
 */
export interface ExtensionHost {
	readonly cwd: string;
	readonly mode: ExtensionMode;
	/** The environment exec gives its programs; default: this process's. */
	readonly commandEnv?: NodeJS.ProcessEnv;
	/** The current model; undefined when none is selected. */
	readonly model: Model | undefined;
	/** Adds a custom message (`CustomMessage` with role "custom") per the delivery options. */
	sendMessage(message: CustomMessageInput, options?: SendMessageOptions): void | Promise<void>;
	/** Sends a user message: a prompt when idle, else queued per `deliverAs`. */
	sendUserMessage(
		content: string | (TextContent | ImageContent)[],
		options?: SendUserMessageOptions,
	): void | Promise<void>;
	/** Appends a `custom` session entry (never sent to the model). */
	appendEntry(customType: string, data?: unknown): void;
	/** Every `/command` (extension commands first, then prompt templates, then skills), as `get_commands` lists them. */
	getCommands(): CommandInfo[];
	/** Switches the model; resolves false when it cannot be used (e.g. no credentials). */
	setModel(model: Model): Promise<boolean>;
	/** False while a prompt's lifecycle (run, retries, compaction, queued work) is in progress. */
	isIdle(): boolean;
	/** Aborts the current run; returns at once. */
	abort(): void;
	/** Whether steering or follow-up messages are queued. */
	hasPendingMessages(): boolean;
	getContextUsage(): ContextUsage | undefined;
	/** Asks for a graceful shutdown (RPC mode acts on it after the next command's response). */
	shutdown(): void;
	/** The current session (it changes on new, switch, fork, clone, import). */
	readonly session: Session;
	readonly modelRegistry: ModelRegistry;
	readonly thinkingLevel: ThinkingLevel;
	/** Clamps to the model; throws for an unknown level. */
	setThinkingLevel(level: ThinkingLevel): void;
	/** The system prompt the next model call uses. */
	readonly systemPrompt: string;
	setSessionName(name: string): void;
	/** Throws `Entry <id> not found`. */
	setLabel(entryId: string, label: string | undefined): void;
	/** Every tool of the session (built-in and extension ones), before the active-tools filter. */
	allTools(): AgentTool[];
	/** The tools the model is offered now. */
	activeTools(): AgentTool[];
	/** Recomputes the tool list and system prompt (after the extensions' active set changed). */
	refreshTools(): void;
	/** A copy of the merged settings. */
	settings(): Record<string, unknown>;
	/** Compacts now; rejects like the RPC `compact` command. */
	compact(query?: string): Promise<CompactionResult>;
	/** Session control for command handlers (the same operations as the RPC commands). */
	control: SessionControl;
}

/** The session operations a command handler may run (see ExtensionCommandContext). */
export interface SessionControl {
	/** Resolves once nothing runs (the lifecycle has settled). */
	waitForIdle(): Promise<void>;
	newSession(options: { parentSession?: string }): Promise<{ cancelled: boolean }>;
	fork(entryId: string): Promise<{ cancelled: boolean }>;
	clone(): Promise<{ cancelled: boolean }>;
	switchSession(path: string): Promise<{ cancelled: boolean }>;
	navigateTree(
		targetId: string,
		options: { summarize?: boolean; customInstructions?: string; label?: string },
	): Promise<{ cancelled: boolean }>;
	/** Reloads skills and prompt templates. */
	reloadResources(): Promise<void>;
}

/** One extension failure, as the RPC `extension_error` event carries it. */
export interface ExtensionError {
	/** The extension file, or `command:<name>` for a failing command. */
	extensionPath: string;
	/** The hook (`tool_call`, `session_start`, ...), or "load" / "command". */
	event: string;
	error: string;
}

/** Receives extension failures. Must not throw. */
export type ExtensionErrorListener = (error: ExtensionError) => void;

export function errorText(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}
