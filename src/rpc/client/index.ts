export type { ApprovalRequestHandler } from "./approvals.js";
export { type BashOptions, type PromptOptions, RpcClient, type WaitOptions } from "./client.js";
export { CLIENT_PROTOCOL_VERSION } from "./connection.js";
export { RpcCommandError, RpcProcessError, RpcTimeoutError } from "./errors.js";
export type { CallOptions, RpcClientOptions } from "./options.js";
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
	BashExecutionUpdateEvent,
	ConfirmRequest,
	EditorRequest,
	InputRequest,
	MessageUpdateEvent,
	NotifyRequest,
	QueueUpdateEvent,
	ReadyEvent,
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
