import type { TSchema } from "typebox";
import type { ProviderError } from "./errors.js";

/** The wire protocols Atomic speaks. Each has one module under `src/llm/providers/`. */
export type Api = "anthropic-messages" | "openai-completions" | "openai-responses" | "google-generative-ai";

export const APIS: readonly Api[] = [
	"anthropic-messages",
	"openai-completions",
	"openai-responses",
	"google-generative-ai",
];

export type ThinkingLevel = "off" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max";

export const THINKING_LEVELS: readonly ThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];

/** Prices in USD per million tokens. */
export interface ModelCost {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
}

/**
 * Provider-specific switches. Every field is optional; absence means "use the protocol's default".
 * The constrained-sampling claims (`supportsStrictTools`, ...) are reported to clients as-is.
 */
export interface ModelCompat {
	/** openai-completions: send `store: false`. */
	supportsStore?: boolean;
	/** openai-completions: use the `developer` role for the system prompt on reasoning models. */
	supportsDeveloperRole?: boolean;
	/** openai-completions: send `reasoning_effort`. */
	supportsReasoningEffort?: boolean;
	/** openai-completions: ask for usage in the stream (`stream_options.include_usage`). */
	supportsUsageInStreaming?: boolean;
	/** openai-completions: which field carries the output token limit. */
	maxTokensField?: "max_completion_tokens" | "max_tokens";
	/** openai-completions: tool result messages need a `name` field. */
	requiresToolResultName?: boolean;
	/** openai-completions: replay earlier thinking as plain text. */
	requiresThinkingAsText?: boolean;
	/**
	 * openai-completions: send earlier reasoning back, in the field it arrived in
	 * (`reasoning_content` or `reasoning`), for servers that need it: `tool-loop` for the replies
	 * since the last user message, `tool-turns` for every reply of a user turn that called tools,
	 * `always` for every reply. Absent: never.
	 */
	sendReasoning?: "tool-loop" | "tool-turns" | "always";
	/** openai-completions: how reasoning is requested. */
	thinkingFormat?: "reasoning_effort" | "openrouter" | "qwen" | "none";
	/** anthropic-messages: use adaptive thinking with `output_config.effort`. */
	forceAdaptiveThinking?: boolean;
	supportsStrictTools?: boolean;
	supportsStrictMode?: boolean;
	supportsOpenAIGrammarTools?: boolean;
	/** Alias of supportsOpenAIGrammarTools, kept equal to it. */
	supportsGrammarTools?: boolean;
}

/**
 * Per-level provider values. A string is sent to the provider instead of the level's default
 * mapping; `null` marks the level unsupported. `xhigh` and `max` are offered only when mapped.
 */
export type ThinkingLevelMap = Partial<Record<ThinkingLevel, string | null>>;

export interface Model {
	id: string;
	name: string;
	api: Api;
	provider: string;
	baseUrl: string;
	reasoning: boolean;
	input: ("text" | "image")[];
	contextWindow: number;
	maxTokens: number;
	cost: ModelCost;
	thinkingLevelMap?: ThinkingLevelMap;
	headers?: Record<string, string>;
	compat?: ModelCompat;
}

export interface TextContent {
	type: "text";
	text: string;
	/** Provider-specific signature to send back with the block (OpenAI Responses item id). */
	textSignature?: string;
}

export interface ImageContent {
	type: "image";
	/** Base64-encoded bytes. */
	data: string;
	mimeType: string;
}

export interface ThinkingContent {
	type: "thinking";
	thinking: string;
	/** Opaque signature or encrypted reasoning the provider needs to see again. */
	thinkingSignature?: string;
	/** The provider returned the reasoning redacted; `thinkingSignature` holds its data. */
	redacted?: boolean;
}

export interface ToolCall {
	type: "toolCall";
	id: string;
	name: string;
	arguments: Record<string, unknown>;
	/** Google: the thought signature attached to this call. */
	thoughtSignature?: string;
}

export interface UserMessage {
	role: "user";
	content: string | (TextContent | ImageContent)[];
	timestamp: number;
}

export interface CostBreakdown {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	total: number;
}

export interface Usage {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	totalTokens: number;
	cost: CostBreakdown;
}

export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

export interface AssistantMessage {
	role: "assistant";
	content: (TextContent | ThinkingContent | ToolCall)[];
	api: Api;
	provider: string;
	model: string;
	usage: Usage;
	stopReason: StopReason;
	/** What a person reads about the failure (stopReason "error" or "aborted"). */
	errorMessage?: string;
	/** The failure as data (stopReason "error"): what retry and compaction decide on. */
	error?: ProviderError;
	timestamp: number;
}

export interface ToolResultMessage<TDetails = unknown> {
	role: "toolResult";
	toolCallId: string;
	toolName: string;
	content: (TextContent | ImageContent)[];
	details?: TDetails;
	isError: boolean;
	timestamp: number;
}

/** The messages a provider understands. */
export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/** A tool as the model sees it: name, description and a TypeBox parameter schema. */
export interface Tool<TParameters extends TSchema = TSchema> {
	name: string;
	description: string;
	parameters: TParameters;
}

/** Everything one model request needs besides the model itself. */
export interface Context {
	systemPrompt?: string;
	messages: Message[];
	tools?: Tool[];
}

/**
 * Options for one streaming request.
 * - `apiKey`: the credential; the caller resolves it (see credentials.ts).
 * - `signal`: aborts the request; the stream then ends with an `error` event, reason `aborted`.
 * - `reasoning`: the thinking level, already clamped to the model; absent or "off" means none.
 * - `maxTokens`: an output cap; absent means the model's maxTokens.
 */
export interface StreamOptions {
	apiKey?: string;
	signal?: AbortSignal;
	reasoning?: ThinkingLevel;
	maxTokens?: number;
	temperature?: number;
	headers?: Record<string, string>;
	/** Token budgets per thinking level for budget-based providers. */
	thinkingBudgets?: Partial<Record<ThinkingLevel, number>>;
	/** A stable id the provider may use for cache affinity. */
	sessionId?: string;
	/** "none": ask the provider not to cache this request's prompt (one-off requests). Default: cache. */
	cacheRetention?: "default" | "none";
	/** Abort the request when no bytes arrive for this long (ms). Absent means no idle limit. */
	idleTimeoutMs?: number;
}

/**
 * The delta-only event stream of one assistant reply. Deltas never carry the accumulated message;
 * `*_end` events carry their finished block; `done` and `error` carry the final message.
 */
export type AssistantMessageEvent =
	| { type: "start" }
	| { type: "text_start"; contentIndex: number }
	| { type: "text_delta"; contentIndex: number; delta: string }
	| { type: "text_end"; contentIndex: number; content: string }
	| { type: "thinking_start"; contentIndex: number }
	| { type: "thinking_delta"; contentIndex: number; delta: string }
	| { type: "thinking_end"; contentIndex: number; content: string }
	| { type: "toolcall_start"; contentIndex: number; id: string; toolName: string }
	| { type: "toolcall_delta"; contentIndex: number; delta: string }
	| { type: "toolcall_end"; contentIndex: number; toolCall: ToolCall }
	| { type: "done"; reason: "stop" | "length" | "toolUse"; message: AssistantMessage }
	| { type: "error"; reason: "aborted" | "error"; message: AssistantMessage };

export type AssistantMessageEventType = AssistantMessageEvent["type"];
