import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import {
	errorFromStatus,
	networkCode,
	type ProviderError,
	type ProviderErrorKind,
	ProviderFailure,
	providerError,
	retryAfterFromError,
} from "../errors.js";

/** The HTTP status each in-stream error type stands for, so the text reads like the HTTP error. */
const STATUS_BY_ERROR_TYPE: Record<string, number> = {
	invalid_request_error: 400,
	authentication_error: 401,
	billing_error: 402,
	permission_error: 403,
	not_found_error: 404,
	conflict_error: 409,
	request_too_large: 413,
	rate_limit_error: 429,
	api_error: 500,
	timeout_error: 504,
	overloaded_error: 529,
};

const KIND_BY_ERROR_TYPE: Record<string, ProviderErrorKind> = {
	billing_error: "quota",
	rate_limit_error: "rate_limit",
	overloaded_error: "overloaded",
	api_error: "server_error",
	timeout_error: "timeout",
};

/**
 * The Messages API names an overflow only in the text of its 400 invalid_request_error ("prompt is
 * too long: N tokens > M maximum", "input length and `max_tokens` exceed context limit"), and an
 * empty balance only in "Your credit balance is too low": these texts are read here and nowhere else.
 */
const OVERFLOW_TEXTS = [/prompt is too long/i, /input length and `?max_tokens`? exceed context limit/i];
const CREDIT_TEXT = /credit balance is too low/i;

export interface AnthropicFailure {
	status?: number;
	/** `error.type` of the body or the stream's error event. */
	type?: string | null;
	/** `error.details.error_code` (spending limits and the like). */
	errorCode?: string | null;
	message: string;
	retryAfterMs?: number;
}

export function classifyAnthropicFailure(failure: AnthropicFailure): ProviderError {
	const type = failure.type ?? undefined;
	const status = failure.status ?? (type ? STATUS_BY_ERROR_TYPE[type] : undefined);
	const fields = { code: failure.errorCode ?? type, retryAfterMs: failure.retryAfterMs };
	if (type === "invalid_request_error" || status === 400) {
		if (OVERFLOW_TEXTS.some((pattern) => pattern.test(failure.message))) {
			return providerError("context_overflow", { ...fields, status });
		}
		if (CREDIT_TEXT.test(failure.message)) return providerError("quota", { ...fields, status });
	}
	if (failure.errorCode?.includes("spend_limit")) return providerError("quota", { ...fields, status });
	const kind = type ? KIND_BY_ERROR_TYPE[type] : undefined;
	if (status !== undefined) return errorFromStatus(status, { ...fields, ...(kind ? { kind } : {}) });
	return providerError(kind ?? "unknown", fields);
}

/**
 * A ProviderFailure for what the SDK threw. The text reads `<status> <details>`; an `error` event
 * inside the stream has no HTTP status, so its error type stands in for one. Aborts pass through.
 */
export function toReplyError(error: unknown): unknown {
	if (error instanceof APIUserAbortError || !(error instanceof APIError)) return error;
	if (error instanceof APIConnectionTimeoutError) {
		return new ProviderFailure(error.message, providerError("timeout"), { cause: error });
	}
	if (error instanceof APIConnectionError) {
		return new ProviderFailure(error.message, providerError("network", { code: networkCode(error) }), { cause: error });
	}
	const message = error.apiMessage ?? error.message;
	const classified = classifyAnthropicFailure({
		status: error.status,
		type: error.type,
		errorCode: error.errorCode,
		message,
		retryAfterMs: retryAfterFromError(error),
	});
	if (error.status === undefined) {
		return new ProviderFailure(anthropicStreamErrorText(error.type, message), classified, { cause: error });
	}
	const details = error.error === undefined ? error.message : JSON.stringify(error.error);
	const text = error.message.startsWith(`${error.status} `) ? error.message : `${error.status} ${details}`;
	return new ProviderFailure(text, classified, { cause: error });
}

/**
 * The error text for an `error` event inside the stream: `<type>: <message>`, prefixed with the
 * status the same error would have had as an HTTP response (e.g. `529 overloaded_error: Overloaded`).
 */
export function anthropicStreamErrorText(type: string | null | undefined, message: string | null | undefined): string {
	const kind = type || "error";
	const text = `${kind}: ${message || "(no message)"}`;
	const status = STATUS_BY_ERROR_TYPE[kind];
	return status === undefined ? text : `${status} ${text}`;
}
