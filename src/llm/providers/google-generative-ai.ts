import { GoogleGenAI } from "@google/genai";
import type { AssistantStreamBuilder } from "../stream-builder.js";
import type { Context, Model, StreamOptions } from "../types.js";
import { normalizeError } from "./google-errors.js";
import { buildGoogleRequest } from "./google-request.js";
import { GoogleStreamReader } from "./google-stream.js";

/** Sent when no key is configured: local servers need none, and the SDK insists on one. */
const PLACEHOLDER_API_KEY = "no-key";

export async function streamReply(
	model: Model,
	context: Context,
	options: StreamOptions,
	out: AssistantStreamBuilder,
): Promise<void> {
	const client = new GoogleGenAI({
		apiKey: options.apiKey ?? PLACEHOLDER_API_KEY,
		// Explicit, so that GOOGLE_GENAI_USE_VERTEXAI in the environment cannot switch backends.
		vertexai: false,
		httpOptions: {
			baseUrl: model.baseUrl,
			headers: { ...model.headers, ...options.headers },
			// Retries are the agent's job.
			retryOptions: { attempts: 1 },
		},
	});
	const request = buildGoogleRequest(model, context, options);
	const reader = new GoogleStreamReader(out);
	try {
		const stream = await client.models.generateContentStream({
			...request,
			// Resuming a dropped stream is a retry too; the agent decides about those.
			config: { ...request.config, abortSignal: options.signal, automaticContinuation: false },
		});
		out.start();
		for await (const chunk of stream) reader.read(chunk);
	} catch (error) {
		throw normalizeError(error);
	}
	reader.finish();
}
