import { Console } from "node:console";
import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from "openai";
import type { Model, StreamOptions } from "../types.js";
import { isRecord, withStatus } from "./openai-shared.js";

/** Sent when the caller has no key: local OpenAI-compatible servers ignore it, the SDK requires one. */
const PLACEHOLDER_API_KEY = "atomic-no-api-key";

// stdout may carry the RPC protocol: the SDK's own log lines go to stderr.
const stderrLogger = new Console(process.stderr);

/** Longest raw error body quoted in an error message. */
const MAX_BODY_CHARS = 2000;

export interface OpenAIConnection {
	client: OpenAI;
	/** Turns whatever the SDK threw into an error whose message starts with the HTTP status when known. */
	providerError(error: unknown): unknown;
}

/**
 * One SDK client per request: no SDK retries (the agent retries), the model's base URL, model then
 * request headers. Organisation and project come from the model's headers, never from the
 * environment, so that a stray OPENAI_ORG_ID cannot break an OpenAI-compatible server.
 */
export function connectOpenAI(model: Model, options: StreamOptions): OpenAIConnection {
	let lastErrorBody: string | undefined;
	const client = new OpenAI({
		apiKey: options.apiKey ?? PLACEHOLDER_API_KEY,
		adminAPIKey: null,
		organization: null,
		project: null,
		baseURL: model.baseUrl,
		maxRetries: 0,
		defaultHeaders: { ...model.headers, ...options.headers },
		logger: stderrLogger,
		// Keeps the raw body of a failed request: the SDK only quotes bodies shaped `{"error": ...}`.
		fetch: async (input, init) => {
			const response = await fetch(input, init);
			if (!response.ok) lastErrorBody = await response.clone().text();
			return response;
		},
	});
	return { client, providerError: (error) => normalizeOpenAIError(error, lastErrorBody) };
}

function normalizeOpenAIError(error: unknown, rawBody: string | undefined): unknown {
	if (!(error instanceof APIError) || error instanceof APIUserAbortError || error instanceof APIConnectionError) {
		return error;
	}
	if (typeof error.status === "number") {
		if (/status code \(no body\)$/.test(error.message) && rawBody?.trim()) {
			return providerFailure(`${error.status} ${rawBody.trim().slice(0, MAX_BODY_CHARS)}`, error);
		}
		return error; // the SDK already reads `<status> <provider message>`
	}
	// An error reported inside the stream (`data: {"error": {...}}`): no HTTP status of its own.
	const body: unknown = error.error;
	const message = isRecord(body) && typeof body.message === "string" ? body.message : error.message;
	return providerFailure(withStatus(codeOf(body), message), error);
}

function providerFailure(message: string, cause: APIError): Error {
	return new Error(message, { cause });
}

function codeOf(body: unknown): unknown {
	return isRecord(body) ? (body.code ?? body.type) : undefined;
}
