import type { ImageContent, Model, TextContent } from "../llm/types.js";
import type { CommandInfo } from "../resources/commands.js";

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
