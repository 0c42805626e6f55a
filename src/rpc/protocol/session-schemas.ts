/**
 * TypeBox schemas of the session-level data RPC returns: entries and the entry tree, compaction
 * results, statistics, the session state, bash results, commands and credentials. Names in
 * `Type.Ref` are `$defs` names (see schema-defs.ts).
 */
import type { TProperties, TSchema } from "typebox";
import { Type } from "../../llm/schema-builders.js";
import { KNOWN_ENTRY_TYPES } from "../../session/types.js";
import { Count, TextOrImage } from "./types.js";

const QueueMode = Type.Enum(["all", "one-at-a-time"]);

/** Every entry has an id, its parent's id (null for a root) and an ISO-8601 timestamp. */
function entry<T extends string, P extends TProperties>(type: T, properties: P) {
	return Type.Object({
		type: Type.Literal(type),
		id: Type.String(),
		parentId: Type.Union([Type.String(), Type.Null()]),
		timestamp: Type.String({ description: "ISO-8601" }),
		...properties,
	});
}

const ENTRIES = {
	MessageEntry: entry("message", { message: Type.Ref("AgentMessage") }),
	ModelChangeEntry: entry("model_change", { provider: Type.String(), modelId: Type.String() }),
	ThinkingLevelChangeEntry: entry("thinking_level_change", { thinkingLevel: Type.String() }),
	CompactionEntry: entry("compaction", {
		summary: Type.String(),
		firstKeptEntryId: Type.Union([Type.String(), Type.Null()]),
		tokensBefore: Count,
		details: Type.Optional(Type.Unknown()),
		fromHook: Type.Optional(Type.Boolean()),
	}),
	BranchSummaryEntry: entry("branch_summary", {
		fromId: Type.String({ description: 'The entry the summary attaches to, or "root"' }),
		summary: Type.String(),
		details: Type.Optional(Type.Unknown()),
		usage: Type.Optional(Type.Unknown()),
		fromHook: Type.Optional(Type.Boolean()),
	}),
	CustomEntry: entry("custom", { customType: Type.String(), data: Type.Optional(Type.Unknown()) }),
	CustomMessageEntry: entry("custom_message", {
		customType: Type.String(),
		content: Type.Union([Type.String(), TextOrImage]),
		display: Type.Boolean(),
		details: Type.Optional(Type.Unknown()),
		excludeFromContext: Type.Optional(Type.Boolean()),
	}),
	LabelEntry: entry("label", { targetId: Type.String(), label: Type.Optional(Type.String()) }),
	SessionInfoEntry: entry("session_info", { name: Type.Optional(Type.String()) }),
	ToolApprovalEntry: entry("tool_approval", {
		toolCallId: Type.String(),
		toolName: Type.String(),
		decision: Type.Enum(["allow", "allow_always", "deny", "deny_always"]),
		by: Type.Enum(["user", "rule", "timeout", "abort"]),
		rule: Type.Optional(
			Type.String({ description: "The rule that decided, or the one allow_always or deny_always added" }),
		),
		reason: Type.Optional(Type.String()),
		requestId: Type.Optional(Type.String({ description: "The tool_approval_request's id, when one was asked" })),
		message: Type.Optional(Type.String({ description: "The text given with a deny" })),
	}),
};

/** An entry another program wrote: any type this build does not know, kept as it is. */
const ForeignEntry = Type.Object(
	{
		type: Type.String({ not: { enum: [...KNOWN_ENTRY_TYPES] } }),
		id: Type.String(),
		parentId: Type.Union([Type.String(), Type.Null()]),
		timestamp: Type.String(),
	},
	{ description: "An entry of a type written by another program" },
);

const SessionEntry = Type.Union([...Object.keys(ENTRIES).map((name) => Type.Ref(name)), Type.Ref("ForeignEntry")], {
	description: "One entry of the append-only session tree",
});

const TreeNode = Type.Object(
	{
		entry: Type.Ref("SessionEntry"),
		children: Type.Array(Type.Ref("TreeNode"), { description: "Sorted by entry timestamp, oldest first" }),
		label: Type.Optional(Type.String()),
		labelTimestamp: Type.Optional(Type.String()),
	},
	{ description: "One node of get_tree: an entry and its children (recursive)" },
);

const CompactionParameters = Type.Object({
	compression_ratio: Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 }),
	preserve_recent: Count,
	query: Type.String(),
});

const CompactionStats = Type.Object({
	linesBefore: Count,
	linesDeleted: Count,
	linesKept: Count,
	rangeCount: Count,
	tokensBefore: Count,
	tokensAfter: Count,
	percentReduction: Type.Number(),
});

const CompactionResult = Type.Object(
	{
		compactedText: Type.String(),
		firstKeptEntryId: Type.Union([Type.String(), Type.Null()], {
			description: "Null when no ordinary message remains outside the compaction",
		}),
		summary: Type.String({ description: "The same text as compactedText, under the name pi's clients read" }),
		tokensBefore: Count,
		promptVersion: Count,
		parameters: CompactionParameters,
		rung: Type.Enum(["planned", "fresh", "extension"]),
		stats: CompactionStats,
		backupPath: Type.Optional(Type.String()),
	},
	{ description: "The result of one verbatim line compaction" },
);

const ContextUsage = Type.Object({
	tokens: Type.Union([Count, Type.Null()], { description: "Null right after a compaction" }),
	contextWindow: Count,
	percent: Type.Union([Type.Number(), Type.Null()]),
});

const SessionStats = Type.Object({
	sessionFile: Type.Optional(Type.String()),
	sessionId: Type.String(),
	userMessages: Count,
	assistantMessages: Count,
	toolCalls: Count,
	toolResults: Count,
	totalMessages: Count,
	tokens: Type.Object({ input: Count, output: Count, cacheRead: Count, cacheWrite: Count, total: Count }),
	cost: Type.Number(),
	contextUsage: Type.Optional(ContextUsage),
});

const SessionState = Type.Object({
	model: Type.Union([Type.Ref("Model"), Type.Null()]),
	thinkingLevel: Type.Ref("ThinkingLevel"),
	isStreaming: Type.Boolean(),
	isCompacting: Type.Boolean(),
	steeringMode: QueueMode,
	followUpMode: QueueMode,
	sessionFile: Type.Optional(Type.String()),
	sessionId: Type.String(),
	sessionName: Type.Optional(Type.String()),
	autoCompactionEnabled: Type.Boolean(),
	messageCount: Count,
	pendingMessageCount: Count,
	queuedMessagesPaused: Type.Boolean({ description: "pause_queued_messages is in effect" }),
	approvalMode: Type.Enum(["auto", "ask", "read-only"]),
	sandbox: Type.Object(
		{
			mode: Type.Enum(["off", "read-only", "workspace-write"]),
			network: Type.Union([Type.Enum(["off", "on"]), Type.Array(Type.String())], {
				description: "off, on, or the host patterns commands may reach",
			}),
			available: Type.Boolean({ description: "Whether the sandbox can be made on this machine" }),
			mechanism: Type.Literal("bubblewrap"),
			reason: Type.Optional(Type.String({ description: "Why it cannot be made, when it cannot" })),
		},
		{ description: "The sandbox of the model's bash commands (docs/sandbox.md)" },
	),
	tools: Type.Optional(
		Type.Array(Type.String(), { description: "The tools the model is offered, connected MCP servers' included" }),
	),
});

/**
 * What `state_changed` carries: any of get_state's fields with its new value; a field get_state
 * leaves out when it has no value (sessionName, sessionFile) is null once it is gone.
 */
const StateChanges = Type.Object(
	Object.fromEntries(
		Object.entries(SessionState.properties).map(([key, schema]) => [
			key,
			Type.Optional(Type.Union([schema as TSchema, Type.Null()])),
		]),
	),
	{ description: "The get_state fields that changed, with their new values" },
);

const BashResult = Type.Object({
	output: Type.String(),
	exitCode: Type.Optional(Type.Integer({ description: "Absent when cancelled or ended by a signal" })),
	cancelled: Type.Boolean(),
	truncated: Type.Boolean(),
	fullOutputPath: Type.Optional(Type.String()),
});

const SourceInfo = Type.Object(
	{
		path: Type.String(),
		source: Type.String({ description: '"local" (agent dir or project) or "cli" (a command-line path)' }),
		scope: Type.Enum(["user", "project", "temporary"]),
		origin: Type.Enum(["package", "top-level"]),
		baseDir: Type.Optional(Type.String({ description: "The directory the file was found in" })),
	},
	{ description: "Where a command comes from (the same shape as pi's sourceInfo)" },
);

const CommandInfo = Type.Object({
	name: Type.String(),
	description: Type.Optional(Type.String()),
	source: Type.Enum(["extension", "prompt", "skill", "mcp"]),
	location: Type.Optional(Type.Enum(["user", "project", "path"])),
	path: Type.Optional(Type.String()),
	sourceInfo: SourceInfo,
});

const AuthStatus = Type.Object({
	configured: Type.Boolean(),
	source: Type.Optional(Type.Enum(["runtime", "auth.json", "models.json", "environment", "not-required"])),
	label: Type.Optional(Type.String({ description: "The variable or file holding the credential, never the key" })),
});

const QueuedItem = Type.Object({ id: Type.String(), text: Type.String() });

const SessionSummary = Type.Object(
	{
		id: Type.String(),
		name: Type.Union([Type.String(), Type.Null()]),
		cwd: Type.String(),
		file: Type.Union([Type.String(), Type.Null()], { description: "null: not stored (--no-session)" }),
		live: Type.Boolean({ description: "Held by the process now (its events can be followed)" }),
		streaming: Type.Boolean(),
		attached: Count,
		modified: Type.Optional(Type.String({ description: "The last message's time (ISO-8601), for stored sessions" })),
		messageCount: Type.Optional(Count),
		firstMessage: Type.Optional(Type.String({ description: "The first user message's text (its start)" })),
	},
	{ description: "One session in list_sessions (attached: how many clients follow it)" },
);

const InProgress = Type.Object(
	{
		message: Type.Optional(Type.Ref("AssistantMessage")),
		tools: Type.Array(
			Type.Object({
				toolCallId: Type.String(),
				toolName: Type.String(),
				args: Type.Record(Type.String(), Type.Unknown()),
				partialResult: Type.Optional(Type.Ref("AgentToolResult")),
			}),
			{ description: "The tool calls that run, with their output so far (from their last tool_execution_update)" },
		),
	},
	{
		description:
			"atomic serve: what a session streams as of the seq it comes with. `message` is the reply so far, built from the deltas sent up to that seq: the message_update events after it continue it",
	},
);

/** The shared session types, by their `$defs` name. */
export const SESSION_TYPES: Record<string, TSchema> = {
	...ENTRIES,
	ForeignEntry,
	SessionEntry,
	TreeNode,
	CompactionReason: Type.Enum(["manual", "threshold", "overflow"]),
	CompactionResult,
	SessionStats,
	SessionState,
	StateChanges,
	ContextUsage,
	BashResult,
	CommandInfo,
	AuthStatus,
	QueuedItem,
	SessionSummary,
	InProgress,
};
