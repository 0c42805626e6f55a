/**
 * Provider failures as data. Each protocol module turns what its SDK threw, or the error its stream
 * reported, into a `ProviderError` on the failed assistant message; retry and compaction read its
 * fields and never the message text. The text (`errorMessage`) is for people.
 */

/**
 * What went wrong, as the agent acts on it:
 * - `rate_limit`: 429 (not a spent quota); `overloaded`: 503, 529; `server_error`: other 5xx;
 * - `timeout`: 408, the SDK's request timeout, the stream idle timeout;
 * - `network`: the connection failed or dropped, or the stream ended before the reply was complete;
 * - `context_overflow`: the request did not fit the model's window (compaction owns it);
 * - `quota`: out of credits, billing, spending limits; `auth`: 401, 403;
 * - `invalid_request`: other 4xx; `content_filter`: a safety or recitation stop, a refusal;
 * - `invalid_response`: a frame the SDK could not parse; `unknown`: anything else.
 */
export type ProviderErrorKind =
	| "rate_limit"
	| "overloaded"
	| "server_error"
	| "timeout"
	| "network"
	| "context_overflow"
	| "quota"
	| "auth"
	| "invalid_request"
	| "content_filter"
	| "invalid_response"
	| "unknown";

export const PROVIDER_ERROR_KINDS: readonly ProviderErrorKind[] = [
	"rate_limit",
	"overloaded",
	"server_error",
	"timeout",
	"network",
	"context_overflow",
	"quota",
	"auth",
	"invalid_request",
	"content_filter",
	"invalid_response",
	"unknown",
];

export interface ProviderError {
	kind: ProviderErrorKind;
	/** Whether sending the same request again can succeed. */
	retryable: boolean;
	/** The HTTP status, or the one the provider's in-stream error type stands for. */
	status?: number;
	/** The provider's own error type or code (`overloaded_error`, `context_length_exceeded`, `ECONNRESET`). */
	code?: string;
	/** How long the server asked to wait before retrying (retry-after), in ms. */
	retryAfterMs?: number;
}

const RETRYABLE_KINDS = new Set<ProviderErrorKind>(["rate_limit", "overloaded", "server_error", "timeout", "network"]);

/** A ProviderError of `kind`, retryable as the kind implies unless `fields` says otherwise. */
export function providerError(
	kind: ProviderErrorKind,
	fields: Partial<Omit<ProviderError, "kind">> = {},
): ProviderError {
	const error: ProviderError = { kind, retryable: fields.retryable ?? RETRYABLE_KINDS.has(kind) };
	if (fields.status !== undefined) error.status = fields.status;
	if (fields.code !== undefined && fields.code !== "") error.code = fields.code;
	if (fields.retryAfterMs !== undefined) error.retryAfterMs = fields.retryAfterMs;
	return error;
}

/** The kind an HTTP status stands for when the body tells nothing more. */
export function kindOfStatus(status: number): ProviderErrorKind {
	if (status === 429) return "rate_limit";
	if (status === 503 || status === 529) return "overloaded";
	if (status === 408) return "timeout";
	if (status >= 500) return "server_error";
	if (status === 401 || status === 403) return "auth";
	if (status === 402) return "quota";
	if (status >= 400) return "invalid_request";
	return "unknown";
}

/**
 * The error of an HTTP failure from its status (409 and 425 ask for the request again), with the
 * provider's code and the server's retry-after when known.
 */
export function errorFromStatus(
	status: number,
	fields: { code?: string; retryAfterMs?: number; kind?: ProviderErrorKind } = {},
): ProviderError {
	const kind = fields.kind ?? kindOfStatus(status);
	const retryable = kind === "invalid_request" && (status === 409 || status === 425) ? true : undefined;
	return providerError(kind, { ...fields, status, ...(retryable ? { retryable } : {}) });
}

/**
 * Thrown by a protocol module with the error already classified; the registry puts `error` on the
 * failed message and `message` in its `errorMessage`.
 */
export class ProviderFailure extends Error {
	readonly error: ProviderError;

	constructor(message: string, error: ProviderError, options?: ErrorOptions) {
		super(message, options);
		this.name = "ProviderFailure";
		this.error = error;
	}
}

/** Node and undici error codes of a connection that failed or dropped. */
const NETWORK_CODES = new Set([
	"ECONNRESET",
	"ECONNREFUSED",
	"ECONNABORTED",
	"EPIPE",
	"EAI_AGAIN",
	"ENOTFOUND",
	"ENETUNREACH",
	"EHOSTUNREACH",
	"UND_ERR_SOCKET",
	"UND_ERR_CLOSED",
	"UND_ERR_CONNECT_TIMEOUT",
]);
const TIMEOUT_CODES = new Set(["ETIMEDOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

/**
 * The error for anything a protocol module threw: a ProviderFailure as classified; otherwise from
 * typed fields only (a numeric `status`, a network `code` on the error or its causes, a JSON
 * SyntaxError). Whatever carries none of these is `unknown`, and not retried.
 */
export function errorFromThrown(error: unknown): ProviderError {
	if (error instanceof ProviderFailure) return error.error;
	const status = numberField(error, "status");
	if (status !== undefined && status >= 400 && status <= 599) {
		return errorFromStatus(status, { retryAfterMs: retryAfterFromError(error) });
	}
	const code = networkCode(error);
	if (code) return providerError(TIMEOUT_CODES.has(code) ? "timeout" : "network", { code });
	if (error instanceof SyntaxError) return providerError("invalid_response");
	return providerError("unknown");
}

/** The first network or timeout code on the error or its causes. */
export function networkCode(error: unknown): string | undefined {
	for (let current = error, depth = 0; current && typeof current === "object" && depth < 5; depth++) {
		const code = (current as { code?: unknown }).code;
		if (typeof code === "string" && (NETWORK_CODES.has(code) || TIMEOUT_CODES.has(code))) return code;
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

function numberField(value: unknown, name: string): number | undefined {
	if (!value || typeof value !== "object") return undefined;
	const field = (value as Record<string, unknown>)[name];
	return typeof field === "number" && Number.isInteger(field) ? field : undefined;
}

/**
 * Turns anything thrown by an SDK or by fetch into one line of text. A ProviderFailure's text is
 * final; SDK API errors already read `<status> <body>`; other errors keep their message, with the cause's code when there is one.
 * Never includes request headers, so credentials cannot leak through it.
 */
export function describeError(error: unknown): string {
	if (error instanceof ProviderFailure) return error.message;
	if (error instanceof Error) {
		const cause = (error as Error & { cause?: unknown }).cause;
		const rawCode = cause && typeof cause === "object" && "code" in cause ? cause.code : undefined;
		const code = rawCode === undefined || rawCode === null ? undefined : String(rawCode);
		const message = error.message || error.name;
		return code && !message.includes(code) ? `${message} (${code})` : message;
	}
	return String(error);
}

/**
 * The `retry-after-ms` or `retry-after` (seconds or an HTTP date) header of an HTTP error from a
 * provider SDK, looked up on the error and its causes; undefined when there is none.
 */
export function retryAfterFromError(error: unknown, now = Date.now()): number | undefined {
	for (let current = error, depth = 0; current && typeof current === "object" && depth < 4; depth++) {
		const delay = retryAfterFromHeaders((current as { headers?: unknown }).headers, now);
		if (delay !== undefined) return delay;
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

/** The retry-after of a set of response headers (a Headers object or a plain record), in ms. */
export function retryAfterFromHeaders(headers: unknown, now = Date.now()): number | undefined {
	const milliseconds = nonNegative(readHeader(headers, "retry-after-ms"));
	if (milliseconds !== undefined) return milliseconds;
	const value = readHeader(headers, "retry-after");
	const seconds = nonNegative(value);
	if (seconds !== undefined) return seconds * 1000;
	// An HTTP date names its day and month; bare numbers that were not valid seconds are not dates.
	const date = value !== undefined && /[a-z]/i.test(value) ? Date.parse(value) : Number.NaN;
	return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

function nonNegative(text: string | undefined): number | undefined {
	if (text === undefined || text.trim() === "") return undefined;
	const value = Number(text);
	return Number.isFinite(value) && value >= 0 ? value : undefined;
}

function readHeader(headers: unknown, name: string): string | undefined {
	if (!headers || typeof headers !== "object") return undefined;
	if (typeof (headers as { get?: unknown }).get === "function") {
		const value = (headers as { get(name: string): unknown }).get(name);
		return typeof value === "string" ? value : undefined;
	}
	const value = (headers as Record<string, unknown>)[name];
	return typeof value === "string" ? value : undefined;
}
