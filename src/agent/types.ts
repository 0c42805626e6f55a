import type { Static, TSchema } from "typebox";
import type { AssistantMessageEventStream } from "../llm/event-stream.js";
import type {
	AssistantMessage,
	AssistantMessageEvent,
	Context,
	ImageContent,
	Message,
	Model,
	StreamOptions,
	TextContent,
	ThinkingLevel,
	Tool,
	ToolCall,
	ToolResultMessage,
} from "../llm/types.js";
import type { AgentMessage } from "./messages.js";

/** What a tool returns. `isError` marks a failed result without throwing (e.g. a non-zero exit). */
export interface AgentToolResult<TDetails = unknown> {
	content: (TextContent | ImageContent)[];
	details?: TDetails;
	isError?: boolean;
}

/** Reports progress: the accumulated partial result so far (not a delta). */
export type ToolUpdateCallback<TDetails = unknown> = (partial: AgentToolResult<TDetails>) => void;

/**
 * A tool the agent can run. `execute` receives arguments already validated against `parameters`,
 * the run's abort signal (it must stop promptly when it fires, killing any child processes), and
 * `onUpdate` for streaming progress. It may throw: the loop turns the throw into an error result
 * whose text is the error message.
 */
export interface AgentTool<TParameters extends TSchema = TSchema, TDetails = unknown> extends Tool<TParameters> {
	/** A short human label (for UIs). */
	label?: string;
	/** "sequential" makes the whole batch run one call at a time when this tool is called. */
	executionMode?: "parallel" | "sequential";
	/**
	 * Rewrites the model's raw arguments before they are validated (e.g. a renamed field). May
	 * throw, or return something that is not an object: the call then fails with an error result.
	 */
	prepareArguments?(args: Record<string, unknown>): unknown;
	/**
	 * True when a call never changes anything outside the process (files, processes, remote
	 * state): tool approvals let such tools run without asking. Omitted means it may change things.
	 */
	readOnly?: boolean;
	execute(
		toolCallId: string,
		args: Static<TParameters>,
		signal: AbortSignal,
		onUpdate: ToolUpdateCallback<TDetails>,
	): Promise<AgentToolResult<TDetails>>;
}

/** Streams one assistant reply; `streamModel` from src/llm/registry.ts, or a scripted fake in tests. */
export type StreamFunction = (model: Model, context: Context, options: StreamOptions) => AssistantMessageEventStream;

export interface ToolCallContext {
	assistantMessage: AssistantMessage;
	toolCall: ToolCall;
	args: Record<string, unknown>;
}

/** A call about to be approved, with the tool it calls. */
export interface ToolApprovalContext extends ToolCallContext {
	tool: AgentTool;
}

export interface ToolCallBlock {
	block: true;
	/** Shown to the model as the error result. */
	reason?: string;
}

/** Replaces fields of a finished tool result; omitted fields keep their value. */
export interface ToolResultOverride {
	content?: (TextContent | ImageContent)[];
	details?: unknown;
	isError?: boolean;
}

export type AgentEvent =
	| { type: "agent_start" }
	| { type: "agent_end"; messages: AgentMessage[] }
	| { type: "turn_start" }
	| { type: "turn_end"; message: AssistantMessage; toolResults: ToolResultMessage[] }
	| { type: "message_start"; message: AgentMessage }
	/** `message` is the live partial reply (read it, never keep it); the event carries the delta. */
	| { type: "message_update"; message: AssistantMessage; assistantMessageEvent: AssistantMessageEvent }
	| { type: "message_end"; message: AgentMessage }
	| { type: "tool_execution_start"; toolCallId: string; toolName: string; args: Record<string, unknown> }
	| {
			type: "tool_execution_update";
			toolCallId: string;
			toolName: string;
			args: Record<string, unknown>;
			partialResult: AgentToolResult;
	  }
	| {
			type: "tool_execution_end";
			toolCallId: string;
			toolName: string;
			result: AgentToolResult;
			isError: boolean;
	  }
	| { type: "auto_retry_start"; attempt: number; maxAttempts: number; delayMs: number; errorMessage: string }
	| { type: "auto_retry_end"; success: boolean; attempt: number; finalError?: string }
	| { type: "queue_update"; steering: QueuedItem[]; followUp: QueuedItem[] };

/** A queued steering or follow-up message as clients see it. */
export interface QueuedItem {
	id: string;
	text: string;
}

/**
 * Receives every event in order. Returning a promise makes the loop wait for it before going on
 * (backpressure, e.g. a slow stdout); returning nothing costs nothing. A listener must not throw.
 */
export type AgentEventSink = (event: AgentEvent) => void | Promise<void>;

export type ToolExecutionMode = "parallel" | "sequential";

/**
 * Everything one run of the loop needs. The loop re-reads `model`, `thinkingLevel`, `tools` and
 * `systemPrompt` at the start of every turn, so changes made between turns take effect.
 */
export interface AgentLoopConfig {
	model: Model;
	thinkingLevel: ThinkingLevel;
	systemPrompt?: string;
	tools: AgentTool[];
	streamFunction: StreamFunction;
	/**
	 * Awaited at the start of each turn, before the turn reads model, level, tools and system
	 * prompt (e.g. to wait for tool servers still starting). Receives the run's signal: a wait
	 * must end when it fires. Must not throw.
	 */
	beforeTurn?(signal: AbortSignal): Promise<void>;
	/**
	 * Request options for one model call (key, headers, budgets). May throw, e.g. when a key is
	 * missing: the turn then ends with an error reply carrying the message.
	 */
	requestOptions?(model: Model): StreamOptions | Promise<StreamOptions>;
	/** Converts the conversation to provider messages. Default: `convertToLlm` in messages.ts. Must not throw. */
	convertToLlm?(messages: AgentMessage[]): Message[];
	/** Rewrites the context before each model call (e.g. compaction). May throw: the turn then ends with an error reply. */
	transformContext?(messages: AgentMessage[], signal: AbortSignal): Promise<AgentMessage[]>;
	/** May block a call; the reason becomes the error result. May throw: treated as a block with the error text. */
	beforeToolCall?(context: ToolCallContext, signal: AbortSignal): Promise<ToolCallBlock | undefined>;
	/**
	 * Decides whether a call that passed `beforeToolCall` may run (tool approvals); a block's
	 * reason becomes the error result. Receives the run's signal and must settle when it aborts.
	 * In a parallel batch the decisions of all calls are awaited together, so several may wait at
	 * once. May throw: treated as a block with the error text. Omitted: every call runs.
	 */
	approveToolCall?(context: ToolApprovalContext, signal: AbortSignal): Promise<ToolCallBlock | undefined>;
	/** May replace fields of a result. May throw: the result becomes an error with the thrown text. */
	afterToolCall?(
		context: ToolCallContext & { result: AgentToolResult; isError: boolean },
		signal: AbortSignal,
	): Promise<ToolResultOverride | undefined>;
	/**
	 * Runs after a turn's tool calls, before the next model call of the same run (not after an
	 * abort). May replace the contents of `messages` in place (e.g. a mid-run compaction); the
	 * next call and every later turn use them. Must not throw.
	 */
	afterToolBatch?(messages: AgentMessage[], signal: AbortSignal): Promise<void>;
	/** Steering messages to deliver now (after a turn's tools, before the next call). Must not throw. */
	getSteeringMessages?(): AgentMessage[];
	/** Follow-up messages to deliver now (only when the run would otherwise stop). Must not throw. */
	getFollowUpMessages?(): AgentMessage[];
	/** Default "parallel". */
	toolExecution?: ToolExecutionMode;
}
