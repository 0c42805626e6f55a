/**
 * TypeBox schemas of the data RPC records carry: models, content blocks, messages, usage and the
 * wire form of streaming deltas. Shared types point at each other with `Type.Ref(<name>)`; the
 * names are the keys of `$defs` in the published document (see schema-defs.ts). Objects allow
 * additional properties: new fields are additive and clients ignore what they do not know.
 */
import type { TSchema } from "typebox";
import { PROVIDER_ERROR_KINDS } from "../../llm/errors.js";
import { Type } from "../../llm/schema-builders.js";
import { APIS, THINKING_LEVELS } from "../../llm/types.js";
import { ImageContentSchema, ThinkingLevelSchema } from "./commands.js";

export const Count = Type.Integer({ minimum: 0 });
export const EpochMs = Type.Integer({ minimum: 0, description: "Milliseconds since the epoch" });
/** A JSON object with any fields (tool arguments). */
export const AnyObject = Type.Record(Type.String(), Type.Unknown());

const ModelCost = Type.Object(
	{ input: Type.Number(), output: Type.Number(), cacheRead: Type.Number(), cacheWrite: Type.Number() },
	{ description: "Prices in USD per million tokens" },
);

const ModelCompat = Type.Object(
	{
		supportsStore: Type.Optional(Type.Boolean()),
		supportsDeveloperRole: Type.Optional(Type.Boolean()),
		supportsReasoningEffort: Type.Optional(Type.Boolean()),
		supportsUsageInStreaming: Type.Optional(Type.Boolean()),
		maxTokensField: Type.Optional(Type.Enum(["max_completion_tokens", "max_tokens"])),
		requiresToolResultName: Type.Optional(Type.Boolean()),
		requiresThinkingAsText: Type.Optional(Type.Boolean()),
		thinkingFormat: Type.Optional(Type.Enum(["reasoning_effort", "openrouter", "qwen", "none"])),
		forceAdaptiveThinking: Type.Optional(Type.Boolean()),
		supportsStrictTools: Type.Optional(Type.Boolean()),
		supportsStrictMode: Type.Optional(Type.Boolean()),
		supportsOpenAIGrammarTools: Type.Optional(Type.Boolean()),
		supportsGrammarTools: Type.Optional(Type.Boolean()),
	},
	{ description: "Provider switches and capability claims; absence means unknown or the protocol default" },
);

const ThinkingLevelMap = Type.Object(
	Object.fromEntries(THINKING_LEVELS.map((level) => [level, Type.Optional(Type.Union([Type.String(), Type.Null()]))])),
	{ description: "Per-level provider values; null marks a level unsupported" },
);

const ModelSchema = Type.Object(
	{
		id: Type.String(),
		name: Type.String(),
		api: Type.Enum(APIS),
		provider: Type.String(),
		baseUrl: Type.String(),
		reasoning: Type.Boolean(),
		input: Type.Array(Type.Enum(["text", "image"])),
		contextWindow: Count,
		maxTokens: Count,
		cost: ModelCost,
		thinkingLevelMap: Type.Optional(ThinkingLevelMap),
		compat: Type.Optional(ModelCompat),
		// Headers may hold credentials: a model on the wire never carries them.
		headers: Type.Optional(Type.Never({ description: "Never present on the wire" })),
	},
	{ description: "A model as RPC reports it (never with its headers)" },
);

const TextContent = Type.Object({
	type: Type.Literal("text"),
	text: Type.String(),
	textSignature: Type.Optional(Type.String()),
});

const ThinkingContent = Type.Object({
	type: Type.Literal("thinking"),
	thinking: Type.String(),
	thinkingSignature: Type.Optional(Type.String()),
	redacted: Type.Optional(Type.Boolean()),
});

const ToolCall = Type.Object({
	type: Type.Literal("toolCall"),
	id: Type.String(),
	name: Type.String(),
	arguments: AnyObject,
	thoughtSignature: Type.Optional(Type.String()),
});

/** Text or image blocks (user, tool result and custom message content). */
export const TextOrImage = Type.Array(Type.Union([Type.Ref("TextContent"), Type.Ref("ImageContent")]));

const CostBreakdown = Type.Object({
	input: Type.Number(),
	output: Type.Number(),
	cacheRead: Type.Number(),
	cacheWrite: Type.Number(),
	total: Type.Number(),
});

const Usage = Type.Object(
	{ input: Count, output: Count, cacheRead: Count, cacheWrite: Count, totalTokens: Count, cost: CostBreakdown },
	{ description: "Token usage; input excludes cached tokens" },
);

const UserMessage = Type.Object({
	role: Type.Literal("user"),
	content: Type.Union([Type.String(), TextOrImage]),
	timestamp: EpochMs,
});

const ProviderError = Type.Object(
	{
		kind: Type.Enum(PROVIDER_ERROR_KINDS),
		retryable: Type.Boolean(),
		status: Type.Optional(Type.Integer({ description: "HTTP status, or the one an in-stream error stands for" })),
		code: Type.Optional(Type.String({ description: "The provider's error type or code" })),
		retryAfterMs: Type.Optional(Type.Number({ description: "The wait the server asked for before a retry" })),
	},
	{ description: "A failed reply's error as data: what retry and compaction decide on" },
);

const AssistantMessage = Type.Object({
	role: Type.Literal("assistant"),
	content: Type.Array(Type.Union([Type.Ref("TextContent"), Type.Ref("ThinkingContent"), Type.Ref("ToolCall")])),
	api: Type.Enum(APIS),
	provider: Type.String(),
	model: Type.String(),
	usage: Type.Ref("Usage"),
	stopReason: Type.Ref("StopReason"),
	errorMessage: Type.Optional(Type.String()),
	error: Type.Optional(ProviderError),
	timestamp: EpochMs,
});

const ToolResultMessage = Type.Object({
	role: Type.Literal("toolResult"),
	toolCallId: Type.String(),
	toolName: Type.String(),
	content: TextOrImage,
	details: Type.Optional(Type.Unknown()),
	isError: Type.Boolean(),
	timestamp: EpochMs,
});

const BashExecutionMessage = Type.Object(
	{
		role: Type.Literal("bashExecution"),
		command: Type.String(),
		output: Type.String(),
		exitCode: Type.Optional(Type.Integer({ description: "Absent when cancelled or ended by a signal" })),
		cancelled: Type.Boolean(),
		truncated: Type.Boolean(),
		// Atomic leaves it out when nothing was spilled; the seed's example shows null.
		fullOutputPath: Type.Optional(Type.Union([Type.String(), Type.Null()])),
		excludeFromContext: Type.Optional(Type.Boolean()),
		timestamp: EpochMs,
	},
	{ description: "Output of an RPC bash command, given to the model with the next prompt" },
);

const CustomMessage = Type.Object({
	role: Type.Literal("custom"),
	customType: Type.String(),
	content: Type.Union([Type.String(), TextOrImage]),
	display: Type.Boolean(),
	details: Type.Optional(Type.Unknown()),
	excludeFromContext: Type.Optional(Type.Boolean()),
	timestamp: EpochMs,
});

const BranchSummaryMessage = Type.Object({
	role: Type.Literal("branchSummary"),
	summary: Type.String(),
	fromId: Type.String(),
	timestamp: EpochMs,
});

const AgentMessage = Type.Union(
	[
		Type.Ref("UserMessage"),
		Type.Ref("AssistantMessage"),
		Type.Ref("ToolResultMessage"),
		Type.Ref("BashExecutionMessage"),
		Type.Ref("CustomMessage"),
		Type.Ref("BranchSummaryMessage"),
	],
	{ description: "Every message a conversation holds, told apart by role" },
);

const AgentToolResult = Type.Object(
	{ content: TextOrImage, details: Type.Optional(Type.Unknown()), isError: Type.Optional(Type.Boolean()) },
	{ description: "What a tool returned (or, in tool_execution_update, the accumulated result so far)" },
);

const Index = { contentIndex: Count };

/** The delta-only wire form of one streaming event: no partial message, no final message. */
const AssistantMessageEvent = Type.Union(
	[
		Type.Object({ type: Type.Literal("start") }),
		Type.Object({ type: Type.Literal("text_start"), ...Index }),
		Type.Object({ type: Type.Literal("text_delta"), ...Index, delta: Type.String() }),
		Type.Object({ type: Type.Literal("text_end"), ...Index, content: Type.String() }),
		Type.Object({ type: Type.Literal("thinking_start"), ...Index }),
		Type.Object({ type: Type.Literal("thinking_delta"), ...Index, delta: Type.String() }),
		Type.Object({ type: Type.Literal("thinking_end"), ...Index, content: Type.String() }),
		Type.Object({ type: Type.Literal("toolcall_start"), ...Index, id: Type.String(), toolName: Type.String() }),
		Type.Object({ type: Type.Literal("toolcall_delta"), ...Index, delta: Type.String() }),
		Type.Object({ type: Type.Literal("toolcall_end"), ...Index, toolCall: Type.Ref("ToolCall") }),
		Type.Object({ type: Type.Literal("done"), reason: Type.Enum(["stop", "length", "toolUse"]) }),
		Type.Object({ type: Type.Literal("error"), reason: Type.Enum(["aborted", "error"]) }),
	],
	{ description: "A streaming delta as message_update carries it; done and error carry only the reason" },
);

/** The shared model and message types, by their `$defs` name. */
export const MESSAGE_TYPES: Record<string, TSchema> = {
	ThinkingLevel: ThinkingLevelSchema,
	StopReason: Type.Enum(["stop", "length", "toolUse", "error", "aborted"]),
	Model: ModelSchema,
	TextContent,
	ImageContent: ImageContentSchema,
	ThinkingContent,
	ToolCall,
	Usage,
	UserMessage,
	AssistantMessage,
	ToolResultMessage,
	BashExecutionMessage,
	CustomMessage,
	BranchSummaryMessage,
	AgentMessage,
	AgentToolResult,
	AssistantMessageEvent,
};
