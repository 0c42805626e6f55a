// The records the client reads from an Atomic RPC process, typed. Only types: nothing here runs.

import type { AgentMessage } from "../../agent/messages.js";
import type { QueuedItem } from "../../agent/types.js";
import type { AssistantMessageEvent, Usage } from "../../llm/types.js";
import type {
	ToolApprovalAnswer,
	ToolApprovalReply,
	ToolApprovalRequest,
} from "../../runtime/approvals/tool-approvals.js";
import type { SessionState } from "../../runtime/facade/api-types.js";
import type { AgentSessionEvent } from "../../runtime/facade/events.js";
import type { InProgress } from "../streamed-reply.js";

export type { ToolApprovalAnswer, ToolApprovalReply };

/** The first record of every RPC process. */
export interface ReadyEvent {
	type: "ready";
	version: string;
	protocolVersion: number;
	pid: number;
	/** Every command type the process accepts. */
	capabilities: string[];
}

/** `assistantMessageEvent` of a wire `message_update`: `done` and `error` lose their final message. */
export type AssistantMessageDelta =
	| Exclude<AssistantMessageEvent, { type: "done" } | { type: "error" }>
	| { type: "done"; reason: "stop" | "length" | "toolUse" }
	| { type: "error"; reason: "aborted" | "error" };

/** A streamed piece of a reply: only the delta and the usage so far (the whole message comes in message_end). */
export interface MessageUpdateEvent {
	type: "message_update";
	assistantMessageEvent: AssistantMessageDelta;
	usage: Usage;
}

export interface QueueUpdateEvent {
	type: "queue_update";
	steering: string[];
	followUp: string[];
	steeringItems: QueuedItem[];
	followUpItems: QueuedItem[];
}

/** Output of a direct `bash` command, correlated by the command's id. */
export interface BashExecutionUpdateEvent {
	type: "bash_execution_update";
	id?: string | number;
	channel: "stdout" | "stderr";
	delta: string;
}

// ------------------------------------------------------------------ extension UI

export interface SelectRequest {
	type: "extension_ui_request";
	id: string;
	method: "select";
	title: string;
	options: string[];
	timeout?: number;
}

export interface ConfirmRequest {
	type: "extension_ui_request";
	id: string;
	method: "confirm";
	title: string;
	message: string;
	timeout?: number;
}

export interface InputRequest {
	type: "extension_ui_request";
	id: string;
	method: "input";
	title: string;
	placeholder?: string;
	timeout?: number;
}

export interface EditorRequest {
	type: "extension_ui_request";
	id: string;
	method: "editor";
	title: string;
	prefill?: string;
}

export interface NotifyRequest {
	type: "extension_ui_request";
	id: string;
	method: "notify";
	message: string;
	notifyType?: "info" | "warning" | "error";
}

export interface SetStatusRequest {
	type: "extension_ui_request";
	id: string;
	method: "setStatus";
	statusKey: string;
	statusText?: string;
}

export interface SetWidgetRequest {
	type: "extension_ui_request";
	id: string;
	method: "setWidget";
	widgetKey: string;
	widgetLines?: string[];
	widgetPlacement?: "aboveEditor" | "belowEditor";
}

export interface SetTitleRequest {
	type: "extension_ui_request";
	id: string;
	method: "setTitle";
	title: string;
}

export interface SetEditorTextRequest {
	type: "extension_ui_request";
	id: string;
	method: "set_editor_text";
	text: string;
}

/** Requests that block the extension until the client answers. */
export type UiDialogRequest = SelectRequest | ConfirmRequest | InputRequest | EditorRequest;
/** Requests that expect no answer. */
export type UiNoticeRequest =
	| NotifyRequest
	| SetStatusRequest
	| SetWidgetRequest
	| SetTitleRequest
	| SetEditorTextRequest;
export type UiRequest = UiDialogRequest | UiNoticeRequest;

/** A dialog answer: `value` for select/input/editor, `confirmed` for confirm. */
export type UiAnswer = { value: string } | { confirmed: boolean } | { cancelled: true };

// ------------------------------------------------------------------ tool approvals

/** A tool call waiting for a decision (answer it with onApprovalRequest or respondToApproval). */
export type ToolApprovalRequestEvent = { type: "tool_approval_request" } & ToolApprovalRequest;

/** Once per request, when it was decided by anyone (`client`, from atomic serve: the token that answered). */
export type ToolApprovalResolvedEvent = Extract<AgentSessionEvent, { type: "tool_approval_resolved" }> & {
	client?: string;
};

// ------------------------------------------------------------------ events

/** The session's events as they appear on the wire (message_update and queue_update are reshaped). */
export type SessionWireEvent =
	| Exclude<AgentSessionEvent, { type: "message_update" } | { type: "queue_update" }>
	| MessageUpdateEvent
	| QueueUpdateEvent;

// ------------------------------------------------------------------ atomic serve

/**
 * From `atomic serve` only: the client missed events that the server no longer holds (after a
 * reconnect, or a restart of the server). `state` and `messages` are the session as it is at `seq`;
 * the events that follow continue from `seq + 1`.
 */
export interface ResyncEvent {
	type: "resync";
	sessionId: string;
	seq: number;
	state: SessionState;
	messages: AgentMessage[];
	/** What runs as of `seq`, while a run streams. */
	inProgress?: InProgress;
}

/** From `atomic serve` only: a dialog was answered (`by`: the token that answered) or closed; stop asking. */
export interface ExtensionUiResolvedEvent {
	type: "extension_ui_resolved";
	id: string;
	by?: string;
}

/** What `attach` answers (and what `start()` of a network client resolves with). */
export interface AttachResult {
	sessionId: string;
	/** The number of the session's last event (0 before the first). */
	seq: number;
	/** `get_state`'s data. */
	state: SessionState;
	/** A plain attach while a run streams: the reply so far (the next deltas continue it) and the tools that run. */
	inProgress?: InProgress;
}

/** The link of a client: to its process, or to `atomic serve`. */
export type ConnectionState = "connecting" | "open" | "reconnecting" | "closed";

/** The number `atomic serve` gives each event of a session (from 1, no gaps); absent over stdio. */
export interface Numbered {
	seq?: number;
}

/**
 * Every non-response record: session events, `ready`, bash output, extension UI requests and
 * (from `atomic serve`) `resync`. Events from `atomic serve` carry their `seq`. Event types a
 * newer server adds are delivered too (with their own shape); switch on `type`.
 */
export type RpcEvent = (
	| Exclude<SessionWireEvent, { type: "tool_approval_resolved" }>
	| ToolApprovalResolvedEvent
	| ReadyEvent
	| BashExecutionUpdateEvent
	| UiRequest
	| ExtensionUiResolvedEvent
	| ResyncEvent
) &
	Numbered;

export type RpcEventType = RpcEvent["type"];
export type RpcEventOf<T extends RpcEventType> = Extract<RpcEvent, { type: T }>;

/** A `response` record. */
export type RpcResponse =
	| { id?: string | number; type: "response"; command: string; success: true; data?: unknown }
	| { id?: string | number; type: "response"; command: string; success: false; error: string };
