// The SDK entry point: everything an embedder imports from "atomic-agent", named one by one (docs/sdk.md,
// "What the package exports", lists the same names; a test compares them).
//  - the LLM layer: the model and message types, streaming a reply, cost, custom wire protocols;
//  - AgentSession and createAgentSession: the whole agent in-process;
//  - RpcClient: the same agent as a subprocess over the JSON-lines protocol;
//  - the types an extension is written against.

export type { AgentMessage } from "./agent/messages.js";
export type { AgentEvent, AgentTool, AgentToolResult } from "./agent/types.js";
export { defineTool, isToolCallEventType } from "./extensions/define-tool.js";
export type {
	BeforeAgentStartEvent,
	ExtensionEventMap,
	ExtensionEventName,
	SessionBeforeSwitchEvent,
	ToolCallEvent,
	ToolResultEvent,
} from "./extensions/events.js";
export type { ReadonlySessionManager } from "./extensions/session-view.js";
export type {
	ExtensionAPI,
	ExtensionCommandContext,
	ExtensionContext,
	ExtensionFactory,
	ExtensionToolContext,
	ToolDefinition,
} from "./extensions/types.js";
export { calculateCost, emptyUsage } from "./llm/cost.js";
export { type ProviderError, type ProviderErrorKind, ProviderFailure, providerError } from "./llm/errors.js";
export { AssistantMessageEventStream } from "./llm/event-stream.js";
export { preloadModelsJsonValidator } from "./llm/models-json.js";
export {
	type ProviderLoader,
	type ProviderModule,
	registerProvider,
	streamModel,
} from "./llm/registry.js";
export type { AssistantStreamBuilder, UsageUpdate } from "./llm/stream-builder.js";
export { supportedThinkingLevels } from "./llm/thinking.js";
export {
	type Api,
	type AssistantMessage,
	type AssistantMessageEvent,
	type AssistantMessageEventType,
	type Context,
	type CostBreakdown,
	type ImageContent,
	type Message,
	type Model,
	type ModelCompat,
	type ModelCost,
	type StopReason,
	type StreamOptions,
	type TextContent,
	THINKING_LEVELS,
	type ThinkingContent,
	type ThinkingLevel,
	type ThinkingLevelMap,
	type Tool,
	type ToolCall,
	type ToolResultMessage,
	type Usage,
	type UserMessage,
} from "./llm/types.js";
export type {
	McpServerConfig,
	McpServerInfo,
	McpServerStatus,
	McpServerUpdate,
	McpSource,
	McpTransportKind,
} from "./mcp/types.js";
export type { ApprovalDecision, ApprovalMode } from "./permissions/index.js";
export type {
	AssistantMessageDelta,
	AttachResult,
	BashExecutionUpdateEvent,
	ConfirmRequest,
	ConnectionState,
	EditorRequest,
	ExtensionUiResolvedEvent,
	InputRequest,
	MessageUpdateEvent,
	NotifyRequest,
	QueueUpdateEvent,
	ReadyEvent,
	ResyncEvent,
	RpcEvent,
	RpcEventOf,
	RpcEventType,
	RpcResponse,
	SelectRequest,
	SessionWireEvent,
	SetEditorTextRequest,
	SetStatusRequest,
	SetTitleRequest,
	SetWidgetRequest,
	ToolApprovalRequestEvent,
	ToolApprovalResolvedEvent,
	UiAnswer,
	UiDialogRequest,
	UiNoticeRequest,
	UiRequest,
} from "./rpc/client/index.js";
export {
	type AnyClientOptions,
	type ApprovalRequestHandler,
	type BashOptions,
	type CallOptions,
	CLIENT_PROTOCOL_VERSION,
	type CommandInput,
	type CommandResults,
	type ConnectionEnd,
	DEFAULT_TIMEOUT_MS,
	type EndedWith,
	type ModelCapabilityClaims,
	type ModelInfo,
	type NetworkClientOptions,
	type ProcessExit,
	type PromptOptions as RpcPromptOptions,
	type PromptOutcome,
	RpcClient,
	type RpcClientOptions,
	RpcCommandError,
	RpcConnectionError,
	RpcConnectionLostError,
	type RpcModel,
	RpcProcessError,
	RpcTimeoutError,
	type StartedWith,
	type Timeout,
	type TimeoutPolicy,
	type UiRequestHandler,
	UNTIMED_COMMANDS,
	type WaitOptions,
} from "./rpc/client/index.js";
export type { InProgress, ToolUnderWay } from "./rpc/streamed-reply.js";
export type {
	ApprovalHandler,
	ToolApprovalAnswer,
	ToolApprovalReply,
	ToolApprovalRequest,
} from "./runtime/approvals/tool-approvals.js";
export type { SessionStats } from "./runtime/current/stats.js";
export {
	AgentSession,
	type AgentSessionOptions,
	BUSY_PROMPT_MESSAGE,
	NO_MODEL_MESSAGE,
	type PromptDisposition,
	type PromptOptions,
	type SessionState,
	type StreamingBehavior,
} from "./runtime/facade/agent-session.js";
export type { SessionSummary } from "./runtime/facade/api-types.js";
export {
	type CreateAgentSessionOptions,
	type CreatedAgentSession,
	createAgentSession,
} from "./runtime/facade/create-agent-session.js";
export type { AgentSessionEvent, AgentSessionListener, CompactionReason } from "./runtime/facade/events.js";
export type { SandboxDetails, SandboxMode, SandboxSettings, SandboxState } from "./sandbox/index.js";
