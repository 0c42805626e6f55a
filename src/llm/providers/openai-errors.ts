import { errorFromStatus, type ProviderError, providerError } from "../errors.js";
import { isRecord } from "./openai-shared.js";

/** Error codes OpenAI puts in stream errors and failed responses, with the HTTP status they stand for. */
const STATUS_BY_ERROR_CODE: Record<string, number> = {
	rate_limit_exceeded: 429,
	insufficient_quota: 429,
	server_error: 500,
	vector_store_timeout: 500,
	invalid_prompt: 400,
	context_length_exceeded: 400,
	invalid_request_error: 400,
};

/** Codes and types that say the request did not fit: OpenAI's code, llama.cpp's error type. */
const OVERFLOW_CODES = new Set(["context_length_exceeded", "exceed_context_size_error"]);
const QUOTA_CODES = new Set(["insufficient_quota"]);

/**
 * Servers that report an overflow only in the text of a 4xx/5xx error, with no code of their own.
 * This is the one place a message text decides anything, and only for these protocols:
 * vLLM, DeepSeek, Mistral, OpenRouter ("maximum context length"), OpenAI Responses without a code
 * ("exceeds the context window"), llama.cpp before its error type ("exceeds the available context
 * size"), Groq ("reduce the length of the messages"), Ollama ("prompt too long"), LM Studio and
 * others ("context length exceeded", "request too large for model").
 */
const OVERFLOW_TEXTS: RegExp[] = [
	/maximum context length/i,
	/exceeds? the context window/i,
	/exceeds? (the )?available context size/i,
	/context[_ ]length[_ ]exceeded/i,
	/context (window|length|size) (is )?(exceeded|too small|full)/i,
	/reduce the length of the (messages|prompt|input)/i,
	/prompt too long/i,
	/request too large for model/i,
];

export interface OpenAIFailure {
	/** The HTTP status; absent for an error reported inside a stream. */
	status?: number;
	/** `error.code` (a string, or a number some servers use for the status). */
	code?: unknown;
	/** `error.type`. */
	type?: unknown;
	message: string;
	retryAfterMs?: number;
}

/** Classifies an OpenAI or OpenAI-compatible failure from its status, code and type. */
export function classifyOpenAIFailure(failure: OpenAIFailure): ProviderError {
	const code = typeof failure.code === "string" ? failure.code : undefined;
	const type = typeof failure.type === "string" ? failure.type : undefined;
	const status = failure.status ?? statusOfCode(failure.code);
	const fields = { code: code ?? type, retryAfterMs: failure.retryAfterMs };
	const named = (name: string | undefined, set: Set<string>) => name !== undefined && set.has(name);
	if (named(code, OVERFLOW_CODES) || named(type, OVERFLOW_CODES)) {
		return providerError("context_overflow", { ...fields, status });
	}
	if (named(code, QUOTA_CODES) || named(type, QUOTA_CODES)) return providerError("quota", { ...fields, status });
	// A rate limit that mentions tokens ("too many tokens per minute") is no overflow.
	if (status !== 429 && OVERFLOW_TEXTS.some((pattern) => pattern.test(failure.message))) {
		return providerError("context_overflow", { ...fields, status });
	}
	if (status !== undefined) return errorFromStatus(status, fields);
	return providerError("unknown", fields);
}

/** The fields of an error body: `{"error": {...}}` (OpenAI, OpenRouter) or the object itself (vLLM). */
export function failureFields(body: unknown): { code?: unknown; type?: unknown; message?: string } {
	const error = isRecord(body) && isRecord(body.error) ? body.error : body;
	if (!isRecord(error)) return {};
	return {
		code: error.code,
		type: error.type,
		...(typeof error.message === "string" ? { message: error.message } : {}),
	};
}

/** The status a code stands for: a number in the HTTP range, or one of OpenAI's named codes. */
export function statusOfCode(code: unknown): number | undefined {
	if (typeof code === "number") return code >= 100 && code <= 599 ? code : undefined;
	if (typeof code !== "string") return undefined;
	return STATUS_BY_ERROR_CODE[code] ?? (/^[1-5]\d\d$/.test(code) ? Number(code) : undefined);
}

/** Prefixes a provider error message with the HTTP status its error code implies, when it implies one. */
export function withStatus(code: unknown, message: string): string {
	const status = statusOfCode(code);
	if (status === undefined || message.startsWith(`${status} `)) return message;
	return `${status} ${message}`;
}
