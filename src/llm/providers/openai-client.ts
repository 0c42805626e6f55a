import { Console } from "node:console";
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { networkCode, ProviderFailure, providerError, retryAfterFromError } from "../errors.js";
import { providerFetch } from "../http-transport.js";
import type { Model, StreamOptions } from "../types.js";
import { classifyOpenAIFailure, failureFields, withStatus } from "./openai-errors.js";

/** Sent when the caller has no key: local OpenAI-compatible servers ignore it, the SDK requires one. */
const PLACEHOLDER_API_KEY = "atomic-no-api-key";

// stdout may carry the RPC protocol: the SDK's own log lines go to stderr.
const stderrLogger = new Console(process.stderr);

/** Longest raw error body quoted in an error message. */
const MAX_BODY_CHARS = 2000;

export interface OpenAIConnection {
	client: OpenAI;
	/** Turns whatever the SDK threw into a ProviderFailure (text with the HTTP status first, and its classification). */
	toFailure(error: unknown): unknown;
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
			const response = await providerFetch(input, init);
			if (!response.ok) lastErrorBody = await response.clone().text();
			return response;
		},
	});
	return { client, toFailure: (error) => normalizeOpenAIError(error, lastErrorBody) };
}

/**
 * A ProviderFailure for what the SDK threw: HTTP errors keep the SDK's `<status> <message>` text
 * (or the raw body when the SDK could not read it), errors inside the stream get the status their
 * code stands for; the classification reads the status, code and type. Aborts pass through.
 */
function normalizeOpenAIError(error: unknown, rawBody: string | undefined): unknown {
	if (error instanceof APIUserAbortError || !(error instanceof APIError)) return error;
	if (error instanceof APIConnectionTimeoutError) {
		return new ProviderFailure(error.message, providerError("timeout"), { cause: error });
	}
	if (error instanceof APIConnectionError) {
		return new ProviderFailure(error.message, providerError("network", { code: networkCode(error) }), { cause: error });
	}
	const retryAfterMs = retryAfterFromError(error);
	if (typeof error.status === "number") {
		const body = rawBody?.trim() ? parseBody(rawBody) : undefined;
		const fields = { code: error.code, type: error.type, ...failureFields(body ?? error.error) };
		const text =
			/status code \(no body\)$/.test(error.message) && rawBody?.trim()
				? `${error.status} ${rawBody.trim().slice(0, MAX_BODY_CHARS)}`
				: error.message;
		const classified = classifyOpenAIFailure({
			...fields,
			status: error.status,
			message: fields.message ?? text,
			retryAfterMs,
		});
		return new ProviderFailure(text, classified, { cause: error });
	}
	// An error reported inside the stream (`data: {"error": {...}}`): no HTTP status of its own.
	const fields = failureFields(error.error);
	const message = fields.message ?? error.message;
	const classified = classifyOpenAIFailure({ ...fields, message, retryAfterMs });
	return new ProviderFailure(withStatus(fields.code ?? fields.type, message), classified, { cause: error });
}

function parseBody(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return undefined; // not JSON (a proxy's HTML page): the status alone classifies it
	}
}
