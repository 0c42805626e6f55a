import type { AgentMessage, CustomMessage } from "../agent/messages.js";
import type { AgentEvent } from "../agent/types.js";
import type { ImageContent, Model, TextContent, ThinkingLevel } from "../llm/types.js";
import type { SessionEntry } from "../session/types.js";
import type { SystemPromptOptions } from "./context-types.js";
import type { CustomMessageInput } from "./host.js";
import type { UiPromptKind } from "./ui-types.js";

type AgentEventOf<T extends AgentEvent["type"]> = Extract<AgentEvent, { type: T }>;

// Observation events: handlers' return values are ignored.
export type AgentStartEvent = AgentEventOf<"agent_start">;
export type AgentEndEvent = AgentEventOf<"agent_end">;
/** `turnIndex` counts the turns of the current run from 0. */
export type TurnStartEvent = AgentEventOf<"turn_start"> & { turnIndex: number; timestamp: number };
export type TurnEndEvent = AgentEventOf<"turn_end"> & { turnIndex: number };
export type MessageStartEvent = AgentEventOf<"message_start">;
export type MessageUpdateEvent = AgentEventOf<"message_update">;
export type MessageEndEvent = AgentEventOf<"message_end">;
export type ToolExecutionStartEvent = AgentEventOf<"tool_execution_start">;
export type ToolExecutionUpdateEvent = AgentEventOf<"tool_execution_update">;
export type ToolExecutionEndEvent = AgentEventOf<"tool_execution_end">;

export type SessionStartReason = "startup" | "new" | "resume" | "fork" | "import" | "reload";

export interface SessionStartEvent {
	type: "session_start";
	reason?: SessionStartReason;
	previousSessionFile?: string;
}

export interface SessionShutdownEvent {
	type: "session_shutdown";
	reason?: "quit" | "new" | "resume" | "fork" | "import" | "reload";
}

/** A prompt's whole lifecycle is over (runs, retries, compaction, queued follow-ups). */
export interface AgentSettledEvent {
	type: "agent_settled";
	/** The last reply was aborted. */
	aborted: boolean;
}

export interface SessionInfoChangedEvent {
	type: "session_info_changed";
	/** Undefined when the name was cleared. */
	name: string | undefined;
}

export interface ModelSelectEvent {
	type: "model_select";
	model: Model;
	previousModel: Model | undefined;
	/** "set": set_model or pi.setModel; "cycle": cycle_model. */
	source: "set" | "cycle" | "restore";
}

export interface ThinkingLevelSelectEvent {
	type: "thinking_level_select";
	level: ThinkingLevel;
	previousLevel: ThinkingLevel;
}

/** A compaction was committed. */
export interface SessionCompactEvent {
	type: "session_compact";
	/** The compaction entry appended to the session. */
	compactionEntry: SessionEntry | undefined;
	/** Always false: compactions come from Atomic's compactor. */
	fromExtension: boolean;
	reason: "manual" | "threshold" | "overflow";
	willRetry: boolean;
}

export interface SessionCompactFailedEvent {
	type: "session_compact_failed";
	reason: "manual" | "threshold" | "overflow";
	errorMessage?: string;
	aborted: boolean;
	willRetry: boolean;
	fromExtension: boolean;
}

/** The active leaf moved (navigate_tree). */
export interface SessionTreeEvent {
	type: "session_tree";
	newLeafId: string | null;
	oldLeafId: string | null;
	/** The branch summary written, when one was asked for. */
	summaryEntry?: SessionEntry;
	fromExtension: boolean;
}

/** After session_start (and `ctx.reload()`): extensions may add skill and prompt template paths. */
export interface ResourcesDiscoverEvent {
	type: "resources_discover";
	cwd: string;
	reason: "startup" | "reload";
}

/** Paths are files or directories, relative to the cwd; `themePaths` is accepted and unused. */
export interface ResourcesDiscoverResult {
	skillPaths?: string[];
	promptPaths?: string[];
	themePaths?: string[];
}

export interface UiPromptEvent {
	type: "ui_prompt_start" | "ui_prompt_end";
	reason: "ui_prompt";
	kind: UiPromptKind;
	title?: string;
}

/** The events `ExtensionRunner.emit` delivers (the agent's, plus the session's notifications). */
export type ObservedEvent =
	| AgentEvent
	| SessionStartEvent
	| AgentSettledEvent
	| SessionInfoChangedEvent
	| ModelSelectEvent
	| ThinkingLevelSelectEvent
	| SessionCompactEvent
	| SessionCompactFailedEvent
	| SessionTreeEvent
	| UiPromptEvent;

// Hook events: handlers may return a result.
export interface SessionBeforeSwitchEvent {
	type: "session_before_switch";
	/** "new" for new_session, "resume" for switch_session, "import" for import_session. */
	reason: "new" | "resume" | "import";
	targetSessionFile?: string;
}

export interface SessionBeforeForkEvent {
	type: "session_before_fork";
	/** The entry the fork starts from, when there is one. */
	entryId?: string;
	/** "before" for fork (before a user message), "at" for clone (at the leaf). */
	position: "before" | "at";
}

/** Before navigate_tree moves the leaf; `{cancel: true}` cancels. */
export interface SessionBeforeTreeEvent {
	type: "session_before_tree";
	preparation: {
		targetId: string;
		oldLeafId: string | null;
		userWantsSummary: boolean;
		customInstructions?: string;
		label?: string;
	};
	signal: AbortSignal;
}

interface BeforeAgentStartBase {
	type: "before_agent_start";
	/** The system prompt as earlier handlers left it. */
	systemPrompt: string;
	/** What the prompt is built from (read-only here: changes to it are not applied). */
	systemPromptOptions: SystemPromptOptions;
}

/**
 * Before a run starts, after input handling and expansion. `messageType` "user": a prompt (or
 * `sendUserMessage`), "custom": `sendMessage(..., {triggerTurn: true})` while idle.
 */
export type BeforeAgentStartEvent =
	| (BeforeAgentStartBase & { messageType: "user"; prompt: string; images?: ImageContent[] })
	| (BeforeAgentStartBase & { messageType: "custom"; message: CustomMessage });

/** `message` joins the run (after the prompt); `systemPrompt` replaces the prompt for this run. */
export interface BeforeAgentStartEventResult {
	message?: Omit<CustomMessageInput, "display"> & { display?: boolean };
	systemPrompt?: string;
}

/** Before each model call: `messages` is a copy the handler may change and return. */
export interface ContextEvent {
	type: "context";
	messages: AgentMessage[];
}

export interface ContextEventResult {
	messages?: AgentMessage[];
}

/** `{cancel: true}` cancels; anything else lets it go on. */
export interface SessionBeforeResult {
	cancel?: boolean;
}

export interface ToolCallEvent {
	type: "tool_call";
	toolName: string;
	toolCallId: string;
	/** The validated arguments; changing them in place changes what the tool receives. */
	input: Record<string, unknown>;
}

/** `{block: true}` stops the call; the reason becomes the error result the model sees. */
export interface ToolCallEventResult {
	block?: boolean;
	reason?: string;
}

export interface ToolResultEvent {
	type: "tool_result";
	toolName: string;
	toolCallId: string;
	input: Record<string, unknown>;
	content: (TextContent | ImageContent)[];
	details: unknown;
	isError: boolean;
}

/** A partial patch: omitted fields keep their value. Later handlers see the patched result. */
export interface ToolResultEventResult {
	content?: (TextContent | ImageContent)[];
	details?: unknown;
	isError?: boolean;
}

export type InputSource = "rpc" | "extension" | "interactive";

export interface InputEvent {
	type: "input";
	text: string;
	images?: ImageContent[];
	source: InputSource;
	/** Present only while the agent is streaming (the prompt's `streamingBehavior`). */
	streamingBehavior?: string;
}

/** Nothing (or "continue") passes the input on; transforms chain; the first "handled" ends it. */
export type InputEventResult =
	| { action: "continue" }
	| { action: "transform"; text: string; images?: ImageContent[] }
	| { action: "handled" };

export interface UserBashEvent {
	type: "user_bash";
	command: string;
	excludeFromContext: boolean;
	cwd: string;
}

/** What a handled direct bash command returns (the RPC `bash` result). */
export interface UserBashResult {
	output: string;
	/** Absent when cancelled. */
	exitCode?: number;
	cancelled: boolean;
	truncated: boolean;
	fullOutputPath?: string;
}

/** pi's shape `{result}` or the result itself; omitted flags default to false. */
export type UserBashEventResult =
	| { result: Partial<UserBashResult> & { output: string } }
	| (Partial<UserBashResult> & { output: string });

/** Every event a handler can subscribe to, with what its handler may return. */
export interface ExtensionEventMap {
	agent_start: [AgentStartEvent, undefined];
	agent_end: [AgentEndEvent, undefined];
	turn_start: [TurnStartEvent, undefined];
	turn_end: [TurnEndEvent, undefined];
	message_start: [MessageStartEvent, undefined];
	message_update: [MessageUpdateEvent, undefined];
	message_end: [MessageEndEvent, undefined];
	tool_execution_start: [ToolExecutionStartEvent, undefined];
	tool_execution_update: [ToolExecutionUpdateEvent, undefined];
	tool_execution_end: [ToolExecutionEndEvent, undefined];
	session_start: [SessionStartEvent, undefined];
	session_shutdown: [SessionShutdownEvent, undefined];
	session_before_switch: [SessionBeforeSwitchEvent, SessionBeforeResult];
	session_before_fork: [SessionBeforeForkEvent, SessionBeforeResult];
	session_before_tree: [SessionBeforeTreeEvent, SessionBeforeResult];
	session_tree: [SessionTreeEvent, undefined];
	session_compact: [SessionCompactEvent, undefined];
	session_compact_failed: [SessionCompactFailedEvent, undefined];
	session_info_changed: [SessionInfoChangedEvent, undefined];
	before_agent_start: [BeforeAgentStartEvent, BeforeAgentStartEventResult];
	context: [ContextEvent, ContextEventResult];
	agent_settled: [AgentSettledEvent, undefined];
	model_select: [ModelSelectEvent, undefined];
	thinking_level_select: [ThinkingLevelSelectEvent, undefined];
	resources_discover: [ResourcesDiscoverEvent, ResourcesDiscoverResult];
	ui_prompt_start: [UiPromptEvent, undefined];
	ui_prompt_end: [UiPromptEvent, undefined];
	tool_call: [ToolCallEvent, ToolCallEventResult];
	tool_result: [ToolResultEvent, ToolResultEventResult];
	input: [InputEvent, InputEventResult];
	user_bash: [UserBashEvent, UserBashEventResult];
}

export type ExtensionEventName = keyof ExtensionEventMap;
