import { ApiError } from "@google/genai";
import { errorFromStatus, type ProviderError, ProviderFailure, providerError } from "../errors.js";

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Gemini names an overflow only in the text of its 400 INVALID_ARGUMENT ("The input token count
 * (N) exceeds the maximum number of tokens allowed (M)"): read here and nowhere else.
 */
const OVERFLOW_TEXTS = [/input token count.*exceeds the maximum/i, /exceeds the maximum number of tokens/i];

/** What the error body says: `{"error": {code, message, status, details}}`. */
interface GoogleErrorBody {
	status?: string;
	message?: string;
	details: unknown[];
}

/**
 * Classifies a Gemini API error. A 429 with a per-day quota violation is a spent quota; any other
 * 429 is a rate limit, with RetryInfo's `retryDelay` as the server's retry-after.
 */
export function classifyGoogleFailure(status: number, body: GoogleErrorBody): ProviderError {
	const message = body.message ?? "";
	const retryAfterMs = retryDelayOf(body.details);
	const fields = { code: body.status, retryAfterMs };
	if (status === 400 && OVERFLOW_TEXTS.some((pattern) => pattern.test(message))) {
		return providerError("context_overflow", { ...fields, status });
	}
	if (status === 429 && quotaIds(body.details).some((id) => /per ?day/i.test(id))) {
		return providerError("quota", { ...fields, status });
	}
	return errorFromStatus(status, fields);
}

/**
 * The SDK's ApiError message is the error body alone (or "got status: ... <body>" for an error
 * inside the stream): the text gets the status first, the classification reads the body.
 */
export function normalizeError(error: unknown): unknown {
	if (!(error instanceof ApiError)) return error;
	const details = error.message.replace(/^got status: [^.]*\.\s*/, "");
	const text = details.startsWith(`${error.status} `) ? details : `${error.status} ${details}`;
	return new ProviderFailure(text, classifyGoogleFailure(error.status, parseBody(details)), { cause: error });
}

function parseBody(text: string): GoogleErrorBody {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return { message: text, details: [] }; // not JSON: the status alone classifies it
	}
	const error = isRecord(value) && isRecord(value.error) ? value.error : {};
	return {
		...(typeof error.status === "string" ? { status: error.status } : {}),
		...(typeof error.message === "string" ? { message: error.message } : { message: text }),
		details: Array.isArray(error.details) ? error.details : [],
	};
}

/** `google.rpc.RetryInfo.retryDelay` ("26s", "1.5s") in ms. */
function retryDelayOf(details: unknown[]): number | undefined {
	for (const detail of details) {
		if (!isRecord(detail) || typeof detail.retryDelay !== "string") continue;
		const match = /^(\d+(?:\.\d+)?)s$/.exec(detail.retryDelay.trim());
		if (match) return Math.round(Number(match[1]) * 1000);
	}
	return undefined;
}

/** The quota ids of `google.rpc.QuotaFailure` violations. */
function quotaIds(details: unknown[]): string[] {
	return details.flatMap((detail) =>
		isRecord(detail) && Array.isArray(detail.violations)
			? detail.violations.flatMap((violation) =>
					isRecord(violation) && typeof violation.quotaId === "string" ? [violation.quotaId] : [],
				)
			: [],
	);
}
