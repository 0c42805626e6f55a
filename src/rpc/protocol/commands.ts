import type { Static, TObject, TProperties } from "typebox";
import { Type } from "../../llm/schema-builders.js";

/** Every command may carry an id; the response echoes it. */
const Id = Type.Optional(
	Type.Union([Type.String(), Type.Number()], { description: "Correlation id, echoed in the response" }),
);

function command<T extends string, P extends TProperties>(type: T, properties: P, description: string) {
	return Type.Object({ id: Id, type: Type.Literal(type), ...properties }, { description, $id: `command.${type}` });
}

export const ImageContentSchema = Type.Object(
	{
		type: Type.Literal("image"),
		data: Type.String({ description: "Base64-encoded bytes" }),
		mimeType: Type.String({ description: "e.g. image/png" }),
	},
	{ $id: "ImageContent" },
);

const Images = Type.Optional(Type.Array(ImageContentSchema));
const QueueModeSchema = Type.Enum(["all", "one-at-a-time"]);
export const ApprovalModeSchema = Type.Enum(["auto", "ask", "read-only"]);
export const SandboxModeSchema = Type.Enum(["off", "read-only", "workspace-write"]);
export const ApprovalDecisionSchema = Type.Enum(["allow", "allow_always", "deny", "deny_always"]);
export const ThinkingLevelSchema = Type.Enum(["off", "minimal", "low", "medium", "high", "xhigh", "max"]);

/** The command schemas, keyed by type. One source for the TS types, validation and JSON Schema. */
export const COMMANDS = {
	prompt: command(
		"prompt",
		{
			message: Type.String(),
			images: Images,
			streamingBehavior: Type.Optional(Type.Enum(["steer", "followUp"])),
		},
		"Send a user prompt. While the agent is streaming, streamingBehavior says how to queue it.",
	),
	steer: command("steer", { message: Type.String(), images: Images }, "Queue a steering message."),
	follow_up: command("follow_up", { message: Type.String(), images: Images }, "Queue a follow-up message."),
	abort: command("abort", {}, "Abort the current operation."),
	new_session: command("new_session", { parentSession: Type.Optional(Type.String()) }, "Start a fresh session."),
	get_state: command("get_state", {}, "Get the current session state."),
	get_messages: command("get_messages", {}, "Get the messages of the conversation."),
	set_model: command("set_model", { provider: Type.String(), modelId: Type.String() }, "Switch to a model."),
	cycle_model: command(
		"cycle_model",
		{ direction: Type.Optional(Type.Enum(["forward", "backward"])) },
		"Switch to the next available model.",
	),
	get_available_models: command("get_available_models", {}, "List the models that have credentials."),
	logout_provider: command("logout_provider", { provider: Type.String() }, "Remove a provider's stored credential."),
	set_thinking_level: command("set_thinking_level", { level: ThinkingLevelSchema }, "Set the thinking level."),
	cycle_thinking_level: command("cycle_thinking_level", {}, "Switch to the next thinking level."),
	get_available_thinking_levels: command("get_available_thinking_levels", {}, "List the model's thinking levels."),
	set_steering_mode: command("set_steering_mode", { mode: QueueModeSchema }, "How steering messages are delivered."),
	set_follow_up_mode: command("set_follow_up_mode", { mode: QueueModeSchema }, "How follow-up messages are delivered."),
	compact: command(
		"compact",
		{
			compression_ratio: Type.Optional(Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 })),
			preserve_recent: Type.Optional(Type.Integer({ minimum: 0 })),
			query: Type.Optional(Type.String()),
			customInstructions: Type.Optional(
				Type.String({ description: "pi's field: used as `query` when `query` is not given" }),
			),
		},
		"Run the verbatim line compactor on the conversation.",
	),
	abort_compaction: command("abort_compaction", {}, "Cancel a running compaction."),
	set_auto_compaction: command(
		"set_auto_compaction",
		{ enabled: Type.Boolean() },
		"Turn automatic compaction on or off.",
	),
	set_auto_retry: command("set_auto_retry", { enabled: Type.Boolean() }, "Turn automatic retry on or off."),
	abort_retry: command("abort_retry", {}, "Cancel a retry in progress."),
	bash: command(
		"bash",
		{ command: Type.String(), excludeFromContext: Type.Optional(Type.Boolean()) },
		"Run a shell command; its output reaches the model with the next prompt.",
	),
	abort_bash: command(
		"abort_bash",
		{ requestId: Type.Optional(Type.Union([Type.String(), Type.Number()])) },
		"Cancel running bash commands (the one with this request id, or all).",
	),
	get_session_stats: command("get_session_stats", {}, "Token, cost and context usage."),
	export_html: command("export_html", { outputPath: Type.Optional(Type.String()) }, "Export the session to HTML."),
	switch_session: command("switch_session", { sessionPath: Type.String() }, "Load another session file."),
	fork: command("fork", { entryId: Type.String() }, "Fork a new session from before a user message."),
	clone: command("clone", {}, "Copy the active branch into a new session."),
	get_fork_messages: command("get_fork_messages", {}, "User messages available for forking."),
	get_entries: command(
		"get_entries",
		{ since: Type.Optional(Type.String()) },
		"Session entries, optionally after a cursor.",
	),
	get_tree: command("get_tree", {}, "The session as a tree of entries."),
	get_last_assistant_text: command("get_last_assistant_text", {}, "Text of the last assistant message."),
	set_session_name: command("set_session_name", { name: Type.String() }, "Set the session's display name."),
	get_commands: command("get_commands", {}, "Extension commands, prompt templates and skills."),
	clear_queue: command("clear_queue", {}, "Remove every queued steering and follow-up message."),
	import_session: command(
		"import_session",
		{ inputPath: Type.String(), cwdOverride: Type.Optional(Type.String()) },
		"Copy a session file into the session directory and switch to it.",
	),
	user_bash: command(
		"user_bash",
		{ command: Type.String(), excludeFromContext: Type.Optional(Type.Boolean()) },
		"Like bash, offered to extensions' user_bash hook first.",
	),
	set_label: command(
		"set_label",
		{ entryId: Type.String(), label: Type.Optional(Type.String()) },
		"Set or (without label) clear the label of a session entry.",
	),
	navigate_tree: command(
		"navigate_tree",
		{
			targetId: Type.String(),
			options: Type.Optional(
				Type.Object({
					summarize: Type.Optional(Type.Boolean()),
					customInstructions: Type.Optional(Type.String()),
					label: Type.Optional(Type.String()),
				}),
			),
		},
		"Move the active leaf to another entry of the session tree.",
	),
	pause_queued_messages: command(
		"pause_queued_messages",
		{},
		"Queue every prompt (even when idle) and hold queued messages until resumed.",
	),
	resume_queued_messages: command("resume_queued_messages", {}, "End a pause and deliver the queued messages."),
	tool_approval_response: command(
		"tool_approval_response",
		{
			requestId: Type.String({ description: "The id of the tool_approval_request" }),
			decision: ApprovalDecisionSchema,
			message: Type.Optional(Type.String({ description: "With deny or deny_always: text the model sees" })),
		},
		"Answer a tool approval request.",
	),
	set_approval_mode: command(
		"set_approval_mode",
		{ mode: ApprovalModeSchema },
		"How tool calls are approved from now on (this process only).",
	),
	set_sandbox_mode: command(
		"set_sandbox_mode",
		{ mode: SandboxModeSchema },
		"Where the model's bash commands run from now on (this process only); refused when looser than the project's settings allow.",
	),
	get_mcp_servers: command("get_mcp_servers", {}, "The configured MCP servers with their status and tools."),
	list_sessions: command(
		"list_sessions",
		{ cwd: Type.Optional(Type.String({ description: "Whose stored sessions (default: the session's folder)" })) },
		"The sessions: the live ones (atomic serve holds several) and the stored ones of a folder.",
	),
	attach: command(
		"attach",
		{
			sessionId: Type.Union([Type.String(), Type.Null()], { description: "A session's id, or null for a new one" }),
			cwd: Type.Optional(Type.String({ description: "The new session's folder, or where to look for the stored one" })),
			afterSeq: Type.Optional(
				Type.Integer({ minimum: 0, description: "Send the events after this seq first (or a resync)" }),
			),
		},
		"atomic serve: receive a session's events and send it commands (a connection has one session at a time).",
	),
	detach: command("detach", {}, "atomic serve: stop receiving the session's events."),
} satisfies Record<string, TObject>;

export type CommandType = keyof typeof COMMANDS;
export type Command = { [K in CommandType]: Static<(typeof COMMANDS)[K]> }[CommandType];
export type CommandOf<K extends CommandType> = Static<(typeof COMMANDS)[K]>;

/** A dialog answer from the client (extension UI sub-protocol); it gets no response. */
export const ExtensionUiResponseSchema = Type.Object(
	{
		type: Type.Literal("extension_ui_response"),
		id: Type.String(),
		value: Type.Optional(Type.String()),
		confirmed: Type.Optional(Type.Boolean()),
		cancelled: Type.Optional(Type.Boolean()),
	},
	{ $id: "extension_ui_response" },
);
export type ExtensionUiResponse = Static<typeof ExtensionUiResponseSchema>;

/** Commands only `atomic serve` carries out (over stdio they are refused, and not announced in `ready`). */
export const SERVER_ONLY_COMMANDS: ReadonlySet<string> = new Set<CommandType>(["attach", "detach"]);

export function isCommandType(type: string): type is CommandType {
	return Object.hasOwn(COMMANDS, type);
}
