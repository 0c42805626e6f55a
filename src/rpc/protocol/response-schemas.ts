/**
 * TypeBox schemas of the responses: for every command type, its success response with the exact
 * `data` it carries (no `data` at all for commands that answer with none), and one shared error
 * response. `responses.ts` builds these records; this file describes them.
 */
import type { TObject, TSchema } from "typebox";
import { Type } from "../../llm/schema-builders.js";
import type { CommandType } from "./commands.js";

const Id = Type.Optional(
	Type.Union([Type.String(), Type.Number()], { description: "The command's id, echoed when it had one" }),
);
const Cancelled = Type.Object({ cancelled: Type.Boolean({ description: "An extension cancelled the operation" }) });
const Models = Type.Array(Type.Ref("Model"));
const NullableString = Type.Union([Type.String(), Type.Null()]);
const Queued = Type.Object({
	disposition: Type.Literal("queued", { description: "Always queued: steering and follow-ups run no command" }),
});

function response(command: CommandType, data: TSchema | undefined, description: string): TObject {
	const base = {
		id: Id,
		type: Type.Literal("response"),
		command: Type.Literal(command),
		success: Type.Literal(true),
	};
	return Type.Object(data ? { ...base, data } : base, { description });
}

/** `data` of each command's success response; undefined: the response has no `data`. */
const DATA: { [K in CommandType]: [data: TSchema | undefined, description: string] } = {
	prompt: [
		Type.Object({
			disposition: Type.Enum(["started", "queued", "handled"], {
				description:
					"started: a run began (agent_start follows); queued: it waits as steering or a follow-up; handled: an extension command or input hook took it, no run starts",
			}),
		}),
		"The prompt was accepted; its run reports through events",
	],
	steer: [Queued, "The steering message was queued"],
	follow_up: [Queued, "The follow-up message was queued"],
	abort: [undefined, "The current operation has ended"],
	new_session: [Cancelled, "A fresh session, unless an extension cancelled"],
	get_state: [Type.Ref("SessionState"), "The current session state"],
	get_messages: [Type.Object({ messages: Type.Array(Type.Ref("AgentMessage")) }), "The conversation"],
	set_model: [Type.Ref("Model"), "The model now in use"],
	cycle_model: [
		Type.Union([
			Type.Object({ model: Type.Ref("Model"), thinkingLevel: Type.Ref("ThinkingLevel"), isScoped: Type.Boolean() }),
			Type.Null(),
		]),
		"The next model, or null when fewer than two models are available",
	],
	get_available_models: [Type.Object({ models: Models }), "Every model that has credentials"],
	logout_provider: [
		Type.Object({
			provider: Type.String(),
			authStatus: Type.Ref("AuthStatus"),
			models: Models,
			scopedModels: Type.Optional(Models),
		}),
		"What authenticates the provider now, and the refreshed catalog",
	],
	set_thinking_level: [undefined, "The level was set (clamped to the model)"],
	cycle_thinking_level: [
		Type.Union([Type.Object({ level: Type.Ref("ThinkingLevel") }), Type.Null()]),
		"The next level, or null when the model does not think",
	],
	get_available_thinking_levels: [
		Type.Object({ levels: Type.Array(Type.Ref("ThinkingLevel")) }),
		"The model's levels in cycle order",
	],
	set_steering_mode: [undefined, "The steering mode was set"],
	set_follow_up_mode: [undefined, "The follow-up mode was set"],
	compact: [Type.Ref("CompactionResult"), "The committed compaction"],
	abort_compaction: [undefined, "A running compaction was cancelled"],
	set_auto_compaction: [undefined, "Automatic compaction was switched"],
	set_auto_retry: [undefined, "Automatic retry was switched"],
	abort_retry: [undefined, "A retry in progress was cancelled"],
	bash: [Type.Ref("BashResult"), "The command's (tail of) output and outcome"],
	abort_bash: [undefined, "The matching bash requests were cancelled"],
	get_session_stats: [Type.Ref("SessionStats"), "Token, cost and context usage"],
	export_html: [Type.Object({ path: Type.String() }), "Where the HTML file was written"],
	switch_session: [Cancelled, "The other session is loaded, unless an extension cancelled"],
	fork: [
		Type.Object({
			text: Type.String({ description: "The text of the message forked from" }),
			cancelled: Type.Boolean(),
		}),
		"The new fork, unless an extension cancelled",
	],
	clone: [Cancelled, "The copy of the active branch, unless an extension cancelled"],
	get_fork_messages: [
		Type.Object({ messages: Type.Array(Type.Object({ entryId: Type.String(), text: Type.String() })) }),
		"User messages a fork can start before",
	],
	get_entries: [
		Type.Object({
			entries: Type.Array(Type.Ref("SessionEntry")),
			leafId: Type.Union([Type.String(), Type.Null()], { description: "Null for an empty session" }),
		}),
		"Entries in append order (after `since` when given)",
	],
	get_tree: [
		Type.Object({ tree: Type.Array(Type.Ref("TreeNode")), leafId: Type.Union([Type.String(), Type.Null()]) }),
		"The session as a tree of entries",
	],
	get_last_assistant_text: [
		Type.Object({ text: NullableString }),
		"The last assistant text, or null when there is none",
	],
	set_session_name: [undefined, "The session name was set"],
	get_commands: [
		Type.Object({ commands: Type.Array(Type.Ref("CommandInfo")) }),
		"Extension commands, templates, skills",
	],
	clear_queue: [
		Type.Object({ steering: Type.Array(Type.String()), followUp: Type.Array(Type.String()) }),
		"The texts of the queued messages that were removed",
	],
	import_session: [Cancelled, "The imported copy is loaded, unless an extension cancelled"],
	user_bash: [Type.Ref("BashResult"), "The result of the command (or of an extension's user_bash hook)"],
	set_label: [undefined, "The label was set or cleared"],
	navigate_tree: [
		Type.Object({
			cancelled: Type.Boolean(),
			editorText: Type.Optional(Type.String({ description: "The text of a user message navigated to" })),
		}),
		"The active leaf moved, unless an extension cancelled",
	],
	pause_queued_messages: [undefined, "Prompts are queued and queued messages wait until resumed"],
	resume_queued_messages: [
		Type.Object({ released: Type.Boolean({ description: "A pause was in effect" }) }),
		"The pause ended; queued messages are delivered",
	],
	tool_approval_response: [undefined, "The request was decided (its tool_approval_resolved follows)"],
	set_approval_mode: [undefined, "The approval mode was set"],
	set_sandbox_mode: [undefined, "The sandbox mode was set"],
	get_mcp_servers: [
		Type.Object({ servers: Type.Array(Type.Ref("McpServerInfo")) }),
		"Every configured MCP server, skipped project servers included",
	],
	list_sessions: [
		Type.Object({ sessions: Type.Array(Type.Ref("SessionSummary")) }),
		"The live sessions first, then the stored ones of the folder, most recently active first",
	],
	attach: [
		Type.Object({
			sessionId: Type.String(),
			seq: Type.Integer({ minimum: 0, description: "The seq of the session's last event (0: none yet)" }),
			state: Type.Ref("SessionState"),
			inProgress: Type.Optional(Type.Ref("InProgress", { description: "Without afterSeq, while a run streams" })),
		}),
		"Attached: the session's events follow (after afterSeq: the missed ones first, or a resync)",
	],
	detach: [undefined, "The session's events no longer come to this connection"],
};

/** The success response of each command, keyed by command type. */
export const RESPONSES = Object.fromEntries(
	Object.entries(DATA).map(([command, [data, description]]) => [
		command,
		response(command as CommandType, data, description),
	]),
) as Record<CommandType, TObject>;

/** Any failed command, including unreadable input (`command: "parse"` or `"unknown"`). */
export const ErrorResponseSchema = Type.Object(
	{
		id: Id,
		type: Type.Literal("response"),
		command: Type.String({ description: 'The command type, or "parse" / "unknown" for unreadable input' }),
		success: Type.Literal(false),
		error: Type.String(),
	},
	{ description: "A command that failed; the id is echoed whenever one could be read" },
);
