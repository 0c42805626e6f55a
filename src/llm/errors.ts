import type { AssistantMessage } from "./types.js";

/**
 * Classifies provider failures from the error message an assistant message carries. Providers put
 * the HTTP status first (`529 {...}`), as the SDKs do, so the message alone is enough.
 *
 * - `transient`: worth retrying (429, 5xx, 529 overloaded, network resets, timeouts).
 * - `permanent`: retrying cannot help (401/403, 400 invalid request, out of quota or billing).
 * - `context_overflow`: the request did not fit the model's context window; compaction owns it.
 * - `aborted`: the caller cancelled.
 */
export type ErrorKind = "transient" | "permanent" | "context_overflow" | "aborted";

const OVERFLOW_PATTERNS: RegExp[] = [
	/prompt is too long/i, // Anthropic
	/input length and `?max_tokens`? exceed context limit/i, // Anthropic
	/exceeds? the context window/i, // OpenAI Responses
	/maximum context length/i, // OpenAI, vLLM, OpenRouter, Mistral
	/context[_ ]length[_ ]exceeded/i, // OpenAI code
	/input token count.*exceeds the maximum/i, // Gemini
	/exceeds the maximum number of tokens/i, // Gemini
	/exceeds? (the )?available context size/i, // llama.cpp
	/context (window|length|size) (is )?(exceeded|too small|full)/i,
	/too many (input )?tokens/i,
	/reduce the length of the (messages|prompt|input)/i, // Groq
	/prompt too long/i, // Ollama
	/request too large for model/i,
];

/** Throttling that mentions tokens ("ThrottlingException: Too many tokens") is not an overflow. */
const NOT_OVERFLOW_PATTERNS: RegExp[] = [/throttl/i, /rate[_ ]?limit/i, /too many requests/i];

const QUOTA_PATTERNS: RegExp[] = [
	/insufficient[_ ]quota/i,
	/quota exceeded/i,
	/exceeded your current quota/i,
	/billing/i,
	/out of (budget|credits)/i,
	/credit balance is too low/i,
	/usage limit/i,
];

const TRANSIENT_PATTERNS: RegExp[] = [
	/overloaded/i,
	/rate[_ ]?limit/i,
	/too many requests/i,
	/service unavailable/i,
	/internal server error/i,
	/server error/i,
	/bad gateway/i,
	/gateway time-?out/i,
	/\bECONNRESET\b/,
	/\bECONNREFUSED\b/,
	/\bETIMEDOUT\b/,
	/\bEPIPE\b/,
	/\bEAI_AGAIN\b/,
	/\bENOTFOUND\b/,
	/socket hang up/i,
	/other side closed/i,
	/connection (error|reset|refused|lost|closed)/i,
	/network (error|failure)/i,
	/fetch failed/i,
	/timed? ?out/i,
	/\bterminated\b/i,
	/stream (ended|closed) (early|before|unexpectedly)/i,
	/ended without/i,
	/premature close/i,
	/idle timeout/i,
	/resource[_ ]?exhausted/i,
	/unavailable/i,
	/try again/i,
];

const ABORT_PATTERNS: RegExp[] = [
	/^(request )?(was )?abort(ed)?/i,
	/operation (was )?aborted/i,
	/\bcancell?ed by (the )?user/i,
];

/** The HTTP status at the start of a provider error message, if any. */
export function statusOf(message: string): number | undefined {
	const match = /^(\d{3})\b/.exec(message.trim());
	return match ? Number(match[1]) : undefined;
}

export function isContextOverflow(message: string): boolean {
	if (NOT_OVERFLOW_PATTERNS.some((pattern) => pattern.test(message))) return false;
	return OVERFLOW_PATTERNS.some((pattern) => pattern.test(message));
}

export function isQuotaError(message: string): boolean {
	return QUOTA_PATTERNS.some((pattern) => pattern.test(message));
}

export function classifyErrorMessage(message: string): ErrorKind {
	if (ABORT_PATTERNS.some((pattern) => pattern.test(message))) return "aborted";
	if (isContextOverflow(message)) return "context_overflow";
	if (isQuotaError(message)) return "permanent";
	const status = statusOf(message);
	if (status !== undefined) {
		if (status === 408 || status === 409 || status === 425 || status === 429 || status >= 500) return "transient";
		if (status >= 400) return "permanent";
	}
	if (TRANSIENT_PATTERNS.some((pattern) => pattern.test(message))) return "transient";
	return "permanent";
}

export function isTransientError(message: string): boolean {
	return classifyErrorMessage(message) === "transient";
}

/**
 * Turns anything thrown by an SDK or by fetch into one line of text. SDK API errors already read
 * `<status> <body>`; other errors keep their message, with the cause's code when there is one.
 * Never includes request headers, so credentials cannot leak through it.
 */
export function describeError(error: unknown): string {
	if (error instanceof Error) {
		const cause = (error as Error & { cause?: unknown }).cause;
		const rawCode = cause && typeof cause === "object" && "code" in cause ? cause.code : undefined;
		const code = rawCode === undefined || rawCode === null ? undefined : String(rawCode);
		const message = error.message || error.name;
		return code && !message.includes(code) ? `${message} (${code})` : message;
	}
	return String(error);
}

/** Server-requested delays before a retry, per failed reply (kept off the message itself). */
const retryAfterHints = new WeakMap<AssistantMessage, number>();

/** The delay the server asked for (retry-after) before retrying this failed reply, in ms. */
export function retryAfterOf(message: AssistantMessage): number | undefined {
	return retryAfterHints.get(message);
}

export function noteRetryAfter(message: AssistantMessage, delayMs: number | undefined): void {
	if (delayMs !== undefined) retryAfterHints.set(message, delayMs);
}

/**
 * The `retry-after-ms` or `retry-after` (seconds or an HTTP date) header of an HTTP error from a
 * provider SDK, looked up on the error and its causes; undefined when there is none.
 */
export function retryAfterFromError(error: unknown, now = Date.now()): number | undefined {
	for (let current = error, depth = 0; current && typeof current === "object" && depth < 4; depth++) {
		const headers = (current as { headers?: unknown }).headers;
		const milliseconds = nonNegative(readHeader(headers, "retry-after-ms"));
		if (milliseconds !== undefined) return milliseconds;
		const value = readHeader(headers, "retry-after");
		const seconds = nonNegative(value);
		if (seconds !== undefined) return seconds * 1000;
		// An HTTP date names its day and month; bare numbers that were not valid seconds are not dates.
		const date = value !== undefined && /[a-z]/i.test(value) ? Date.parse(value) : Number.NaN;
		if (Number.isFinite(date)) return Math.max(0, date - now);
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
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
