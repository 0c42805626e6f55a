export type { InProgress, ToolUnderWay } from "../streamed-reply.js";
export type { ApprovalRequestHandler } from "./approvals.js";
export { type BashOptions, type PromptOptions, RpcClient, type WaitOptions } from "./client.js";
export { CLIENT_PROTOCOL_VERSION } from "./connection.js";
export {
	RpcCommandError,
	RpcConnectionError,
	RpcConnectionLostError,
	RpcProcessError,
	RpcTimeoutError,
} from "./errors.js";
export type {
	AnyClientOptions,
	CallOptions,
	ConnectionEnd,
	EndedWith,
	NetworkClientOptions,
	RpcClientOptions,
	StartedWith,
} from "./options.js";
export { DEFAULT_TIMEOUT_MS, type Timeout, type TimeoutPolicy, UNTIMED_COMMANDS } from "./pending.js";
export type { ProcessExit } from "./process.js";
export type {
	CommandInput,
	CommandResults,
	ModelCapabilityClaims,
	ModelInfo,
	PromptOutcome,
	RpcModel,
} from "./results.js";
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
} from "./types.js";
export type { UiRequestHandler } from "./ui.js";
