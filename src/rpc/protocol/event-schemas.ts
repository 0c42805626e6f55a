/**
 * TypeBox schemas of every record written to stdout that is not a response: the `ready` frame,
 * the agent's and the session's events in their wire form (wire-events.ts), direct bash deltas
 * and the extension UI requests (one schema per method).
 */
import type { TObject, TProperties } from "typebox";
import { Type } from "../../llm/schema-builders.js";
import { McpServerUpdateFields } from "./mcp-schemas.js";
import { AnyObject, Count } from "./types.js";

/**
 * The protocol version these schemas describe: PROTOCOL_VERSION of rpc-mode.ts (a test checks they
 * agree; rpc-mode.ts is not imported here, so that the schema modules stay free of the server).
 */
export const SCHEMA_PROTOCOL_VERSION = 1;

/** `atomic serve` numbers every event of a session (docs/server.md); over stdio there is none. */
const Seq = Type.Optional(
	Type.Integer({ minimum: 1, description: "atomic serve: the event's number in its session (from 1, no gaps)" }),
);

function event<T extends string, P extends TProperties>(type: T, properties: P, description: string) {
	return Type.Object({ type: Type.Literal(type), ...properties, seq: Seq }, { description });
}

const Messages = Type.Array(Type.Ref("AgentMessage"));
const CompactionReason = Type.Ref("CompactionReason");
const ToolIdentity = { toolCallId: Type.String(), toolName: Type.String() };

/** Each event, keyed by its type. */
export const EVENTS: Record<string, TObject> = {
	ready: event(
		"ready",
		{
			version: Type.String({ description: "Atomic's version" }),
			protocolVersion: Type.Literal(SCHEMA_PROTOCOL_VERSION, {
				description: "Raised only by a change that breaks clients",
			}),
			pid: Type.Integer({ minimum: 1 }),
			capabilities: Type.Array(Type.String(), { description: "Every command type this build accepts" }),
			client: Type.Optional(
				Type.Object(
					{ name: Type.String(), role: Type.Enum(["controller", "observer"]) },
					{ description: "atomic serve: the token this connection uses (an observer may only read)" },
				),
			),
		},
		"The first record: the agent reads commands",
	),
	agent_start: event("agent_start", {}, "The agent begins processing a prompt"),
	agent_end: event("agent_end", { messages: Messages }, "The run ended; every message it produced"),
	turn_start: event("turn_start", {}, "A turn (one reply and its tool calls) begins"),
	turn_end: event(
		"turn_end",
		{ message: Type.Ref("AssistantMessage"), toolResults: Type.Array(Type.Ref("ToolResultMessage")) },
		"A turn ended: its reply and tool results",
	),
	message_start: event("message_start", { message: Type.Ref("AgentMessage") }, "A message begins"),
	message_update: event(
		"message_update",
		{ assistantMessageEvent: Type.Ref("AssistantMessageEvent"), usage: Type.Optional(Type.Ref("Usage")) },
		"A streaming delta of the assistant reply (no partial message); usage so far in the first update of a message and whenever it changed",
	),
	message_end: event("message_end", { message: Type.Ref("AgentMessage") }, "A message is complete"),
	tool_execution_start: event(
		"tool_execution_start",
		{ ...ToolIdentity, args: AnyObject },
		"A tool call begins executing",
	),
	tool_execution_update: event(
		"tool_execution_update",
		{ ...ToolIdentity, args: AnyObject, partialResult: Type.Ref("AgentToolResult") },
		"Progress of a tool call: the accumulated result so far",
	),
	tool_execution_end: event(
		"tool_execution_end",
		{ ...ToolIdentity, result: Type.Ref("AgentToolResult"), isError: Type.Boolean() },
		"A tool call finished",
	),
	bash_execution_update: event(
		"bash_execution_update",
		{
			id: Type.Optional(Type.Union([Type.String(), Type.Number()], { description: "The bash command's id" })),
			channel: Type.Enum(["stdout", "stderr"]),
			delta: Type.String(),
		},
		"Output of a direct bash command as it arrives",
	),
	queue_update: event(
		"queue_update",
		{
			steering: Type.Array(Type.String()),
			followUp: Type.Array(Type.String()),
			steeringItems: Type.Array(Type.Ref("QueuedItem")),
			followUpItems: Type.Array(Type.Ref("QueuedItem")),
		},
		"The steering or follow-up queue changed",
	),
	compaction_start: event(
		"compaction_start",
		{
			reason: CompactionReason,
			midTurn: Type.Optional(
				Type.Boolean({
					description: "Present (true) for a compaction between a run's tool calls and its next model call",
				}),
			),
		},
		"A compaction begins",
	),
	compaction_end: event(
		"compaction_end",
		{
			reason: CompactionReason,
			result: Type.Union([Type.Ref("CompactionResult"), Type.Null()], {
				description: "The committed boundary, or null when nothing was written",
			}),
			aborted: Type.Boolean(),
			willRetry: Type.Boolean({ description: "The prompt continues automatically (overflow recovery)" }),
			errorMessage: Type.Optional(Type.String()),
			unresolvedOverflow: Type.Optional(Type.Boolean()),
		},
		"A compaction ended",
	),
	auto_retry_start: event(
		"auto_retry_start",
		{ attempt: Count, maxAttempts: Count, delayMs: Count, errorMessage: Type.String() },
		"A transient error: the reply is retried after delayMs",
	),
	auto_retry_end: event(
		"auto_retry_end",
		{ success: Type.Boolean(), attempt: Count, finalError: Type.Optional(Type.String()) },
		"Automatic retry ended",
	),
	summarization_retry_scheduled: event(
		"summarization_retry_scheduled",
		{ attempt: Count, maxAttempts: Count, delayMs: Count, errorMessage: Type.String() },
		"A compaction or branch-summary request failed transiently and is retried",
	),
	summarization_retry_attempt_start: event(
		"summarization_retry_attempt_start",
		{
			source: Type.Enum(["compaction", "branchSummary"]),
			reason: Type.Optional(CompactionReason),
		},
		"A retried summarization request starts",
	),
	summarization_retry_finished: event("summarization_retry_finished", {}, "The summarization retry loop ended"),
	extension_error: event(
		"extension_error",
		{ extensionPath: Type.String(), event: Type.String(), error: Type.String() },
		"An extension threw",
	),
	agent_settled: event("agent_settled", {}, "A prompt's whole lifecycle is over: the agent is idle"),
	session_changed: event(
		"session_changed",
		{
			reason: Type.Enum(["new", "switch", "fork", "clone", "import"]),
			sessionId: Type.String(),
			sessionFile: Type.Optional(Type.String()),
		},
		"The session was replaced",
	),
	warning: event("warning", { message: Type.String() }, "A problem that does not stop the agent"),
	state_changed: event(
		"state_changed",
		{ changes: Type.Ref("StateChanges") },
		"Fields of get_state changed (by a command, a clamp, an extension, a compaction, a replacement): their new values",
	),
	context_usage: event(
		"context_usage",
		{
			tokens: Type.Union([Count, Type.Null()], { description: "Null right after a compaction" }),
			contextWindow: Count,
			percent: Type.Union([Type.Number(), Type.Null()]),
		},
		"After every assistant message and every compaction: get_session_stats's contextUsage",
	),
	heartbeat: event(
		"heartbeat",
		{
			waitingOn: Type.Enum(["provider", "tool", "compaction", "dialog", "approval"]),
			idleMs: Count,
		},
		"The agent is busy and has written nothing for a while: what it is waiting on, and for how long",
	),
	tool_approval_request: event(
		"tool_approval_request",
		{
			id: Type.String({ description: "Answer with a tool_approval_response carrying this id as requestId" }),
			...ToolIdentity,
			args: AnyObject,
			reason: Type.String({ description: "Why it asks (the mode), in words" }),
			options: Type.Array(Type.Enum(["allow", "allow_always", "deny", "deny_always"])),
			timeout: Type.Optional(Type.Integer({ minimum: 1, description: "Milliseconds until it is denied" })),
			expiresAt: Type.Optional(Type.String({ description: "When it is denied (ISO-8601)" })),
			alwaysRule: Type.String({
				description: "The rule allow_always adds as an allow rule, or deny_always as a deny rule, for the session",
			}),
			kind: Type.Optional(
				Type.Literal("sandbox_escalation", {
					description:
						"The model asks to run this bash call once outside the sandbox (asked in every approval mode); absent: a tool call",
				}),
			),
		},
		"A tool call waits for a decision; several may be open at once",
	),
	tool_approval_resolved: event(
		"tool_approval_resolved",
		{
			id: Type.String({ description: "The request's id" }),
			toolCallId: Type.String(),
			decision: Type.Enum(["allow", "deny"]),
			by: Type.Enum(["user", "rule", "timeout", "abort"]),
			rule: Type.Optional(
				Type.String({ description: "The rule that decided, or the one allow_always or deny_always added" }),
			),
			client: Type.Optional(Type.String({ description: "atomic serve: the name of the token that answered" })),
		},
		"A tool approval request was decided (once per request)",
	),
	extension_ui_resolved: event(
		"extension_ui_resolved",
		{
			id: Type.String({ description: "The extension_ui_request's id" }),
			by: Type.Optional(Type.String({ description: "The name of the token that answered" })),
		},
		"atomic serve: a dialog was answered by one of the session's clients (the others close it)",
	),
	resync: event(
		"resync",
		{
			sessionId: Type.String(),
			seq: Type.Integer({ minimum: 0, description: "The seq of the session's last event; new events follow it" }),
			state: Type.Ref("SessionState"),
			messages: Messages,
			inProgress: Type.Optional(Type.Ref("InProgress", { description: "While a run streams" })),
		},
		"atomic serve: events after attach's afterSeq are no longer held; this is the session as it is now",
	),
	model_fallback: event(
		"model_fallback",
		{
			from: Type.String({ description: "provider/id of the model that failed" }),
			to: Type.String({ description: "provider/id of the model the prompt goes on with" }),
			reason: Type.String({ description: "The error kind (overloaded, rate_limit, ...) or context_overflow" }),
		},
		"The model in use failed for good; the prompt goes on with the next model of the fallback tiers",
	),
	mcp_server_update: event(
		"mcp_server_update",
		McpServerUpdateFields,
		"An MCP server's status or tool list changed (tools: how many it offers now)",
	),
};

function uiRequest<M extends string, P extends TProperties>(method: M, properties: P, description: string) {
	return Type.Object(
		{
			type: Type.Literal("extension_ui_request"),
			id: Type.String({ description: "Dialogs: answer with an extension_ui_response carrying this id" }),
			method: Type.Literal(method),
			...properties,
			seq: Seq,
		},
		{ description },
	);
}

const Timeout = Type.Optional(Type.Integer({ minimum: 1, description: "Milliseconds until the default answer" }));

/** Each extension UI request, keyed by method. */
export const UI_REQUESTS: Record<string, TObject> = {
	select: uiRequest(
		"select",
		{ title: Type.String(), options: Type.Array(Type.String()), timeout: Timeout },
		"Dialog: choose one option (answer with value, or cancelled)",
	),
	confirm: uiRequest(
		"confirm",
		{ title: Type.String(), message: Type.String(), timeout: Timeout },
		"Dialog: yes or no (answer with confirmed, or cancelled)",
	),
	input: uiRequest(
		"input",
		{ title: Type.String(), placeholder: Type.Optional(Type.String()), timeout: Timeout },
		"Dialog: free-form text (answer with value, or cancelled)",
	),
	editor: uiRequest(
		"editor",
		{ title: Type.String(), prefill: Type.Optional(Type.String()), timeout: Timeout },
		"Dialog: multi-line text (answer with value, or cancelled)",
	),
	notify: uiRequest(
		"notify",
		{ message: Type.String(), notifyType: Type.Optional(Type.Enum(["info", "warning", "error"])) },
		"Show a notification (no answer)",
	),
	setStatus: uiRequest(
		"setStatus",
		{ statusKey: Type.String(), statusText: Type.Optional(Type.String({ description: "Absent: clear the entry" })) },
		"Set or clear a status entry (no answer)",
	),
	setWidget: uiRequest(
		"setWidget",
		{
			widgetKey: Type.String(),
			widgetLines: Type.Optional(Type.Array(Type.String(), { description: "Absent: clear the widget" })),
			widgetPlacement: Type.Optional(Type.Enum(["aboveEditor", "belowEditor"])),
		},
		"Set or clear a widget (no answer)",
	),
	setTitle: uiRequest("setTitle", { title: Type.String() }, "Set the window title (no answer)"),
	set_editor_text: uiRequest("set_editor_text", { text: Type.String() }, "Set the input editor's text (no answer)"),
};
