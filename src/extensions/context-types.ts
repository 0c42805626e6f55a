import type { AgentTool, AgentToolResult, ToolUpdateCallback } from "../agent/types.js";
import type { ImageContent, Model, TextContent, ThinkingLevel } from "../llm/types.js";
import type {
	ContextUsage,
	CustomMessageInput,
	ExtensionMode,
	SendMessageOptions,
	SendUserMessageOptions,
} from "./host.js";
import type { ModelRegistryView } from "./model-registry-view.js";
import type { ReadonlySessionManager } from "./session-view.js";
import type { ExtensionUiContext } from "./ui-types.js";

/** What `ctx.compact()` reports back. `summary` is the compacted text (pi's name). */
export interface CompactOutcome {
	summary: string;
	firstKeptEntryId: string | null;
	tokensBefore: number;
}

export interface CompactOptions {
	/** Used as the compactor's query: what the next work is about. */
	customInstructions?: string;
	onComplete?: (result: CompactOutcome) => void;
	onError?: (error: Error) => void;
}

/** What `ctx.getSystemPromptOptions()` and `before_agent_start` report of the prompt's inputs. */
export interface SystemPromptOptions {
	cwd: string;
	/** The active tools, in prompt order. */
	selectedTools: string[];
	/** One line per active tool. */
	toolSnippets: Record<string, string>;
	/** Extra guideline bullets per active tool (`promptGuidelines`). */
	toolGuidelines: Record<string, string[]>;
	/** Text added at the end (`--append-system-prompt`). */
	appendSystemPrompt?: string;
}

/**
 * What every handler, command and tool receives as `ctx` (pi's ExtensionContext). Members read the
 * session at the moment they are used.
 */
export interface ExtensionContext {
	readonly ui: ExtensionUiContext;
	/** True when dialogs reach a user (RPC mode); false in print and json modes. */
	readonly hasUI: boolean;
	readonly mode: ExtensionMode;
	readonly cwd: string;
	/** The read side of the current session. */
	readonly sessionManager: ReadonlySessionManager;
	readonly modelRegistry: ModelRegistryView;
	readonly model: Model | undefined;
	/** Always empty: Atomic has no model scoping, every available model is usable. */
	readonly scopedModels: readonly { model: Model; thinkingLevel?: ThinkingLevel }[];
	readonly thinkingLevel: ThinkingLevel;
	/** The current run's abort signal, in tool hooks and tools; undefined elsewhere. */
	readonly signal: AbortSignal | undefined;
	isIdle(): boolean;
	/** Always true: Atomic loads project extensions and resources without a trust step. */
	isProjectTrusted(): boolean;
	abort(): void;
	hasPendingMessages(): boolean;
	getContextUsage(): ContextUsage | undefined;
	/** Asks Atomic to exit gracefully (session_shutdown is emitted first). */
	shutdown(): void;
	/** Starts a compaction without waiting for it; the options' callbacks report the outcome. */
	compact(options?: CompactOptions): void;
	/** The system prompt the next model call uses. */
	getSystemPrompt(): string;
}

export interface ExecuteToolOptions {
	signal?: AbortSignal;
	onUpdate?: ToolUpdateCallback;
}

/** What a tool's `execute` receives: the context plus the tools it may call. */
export interface ExtensionToolContext extends ExtensionContext {
	readonly tools: readonly AgentTool[];
	/**
	 * Runs another active tool with validated arguments; never rejects for tool failures (an
	 * unknown tool, invalid arguments or a throw come back as `isError: true`). The `tool_call` and
	 * `tool_result` hooks do not run for such nested calls.
	 */
	executeTool(
		name: string,
		args: unknown,
		options?: ExecuteToolOptions,
	): Promise<AgentToolResult & { isError: boolean }>;
}

/** The context `withSession` callbacks get: the command's, plus messages for the new session. */
export interface ReplacedSessionContext extends ExtensionCommandContext {
	sendMessage(message: CustomMessageInput, options?: SendMessageOptions): Promise<void>;
	sendUserMessage(content: string | (TextContent | ImageContent)[], options?: SendUserMessageOptions): Promise<void>;
}

export type WithSession = (ctx: ReplacedSessionContext) => Promise<void>;

/** What command handlers receive: the context plus session control. */
export interface ExtensionCommandContext extends ExtensionContext {
	getSystemPromptOptions(): SystemPromptOptions;
	/** Resolves once the agent is idle (runs, retries, compaction and queued work done). */
	waitForIdle(): Promise<void>;
	/** `withSession` runs after the switch, with this same context (extensions stay loaded across sessions). */
	newSession(options?: { parentSession?: string; withSession?: WithSession }): Promise<{ cancelled: boolean }>;
	/** `position: "before"` (default) forks before a user message; `"at"` is only possible at the leaf (a clone). */
	fork(
		entryId: string,
		options?: { position?: "before" | "at"; withSession?: WithSession },
	): Promise<{ cancelled: boolean }>;
	navigateTree(
		targetId: string,
		options?: { summarize?: boolean; customInstructions?: string; label?: string },
	): Promise<{ cancelled: boolean }>;
	switchSession(sessionPath: string, options?: { withSession?: WithSession }): Promise<{ cancelled: boolean }>;
	/** Reloads skills and prompt templates (extensions stay loaded). */
	reload(): Promise<void>;
}
