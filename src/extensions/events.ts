import type { AgentEvent } from "../agent/types.js";
import type { ImageContent, TextContent } from "../llm/types.js";

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

/** The events `ExtensionRunner.emit` delivers (the agent's, plus session start). */
export type ObservedEvent = AgentEvent | SessionStartEvent;

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
	tool_call: [ToolCallEvent, ToolCallEventResult];
	tool_result: [ToolResultEvent, ToolResultEventResult];
	input: [InputEvent, InputEventResult];
	user_bash: [UserBashEvent, UserBashEventResult];
}

export type ExtensionEventName = keyof ExtensionEventMap;
