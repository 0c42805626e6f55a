import { Console } from "node:console";
import Anthropic from "@anthropic-ai/sdk";
import type { AssistantStreamBuilder } from "../stream-builder.js";
import type { Context, Model, StreamOptions } from "../types.js";
import { toReplyError } from "./anthropic-errors.js";
import { AnthropicEventReader } from "./anthropic-events.js";
import { buildAnthropicRequest } from "./anthropic-request.js";

/** Sent when no key is configured (local servers need none); the runtime checked beforehand. */
const PLACEHOLDER_API_KEY = "atomic-no-key";

// stdout may carry the RPC protocol: the SDK's own log lines go to stderr.
const stderrLogger = new Console(process.stderr);

/** Streams one reply from the Anthropic Messages API (see ProviderModule in registry.ts). */
export async function streamReply(
	model: Model,
	context: Context,
	options: StreamOptions,
	out: AssistantStreamBuilder,
): Promise<void> {
	const request = buildAnthropicRequest(model, context, options);
	const apiKey = options.apiKey ?? PLACEHOLDER_API_KEY;
	const client = new Anthropic({
		apiKey,
		baseURL: model.baseUrl,
		maxRetries: 0, // retries are the agent's job
		defaultHeaders: {
			// The Messages API and compatible servers take the key as x-api-key; this SDK version would
			// send it as a bearer token, so that header is dropped unless the model's headers set one.
			"x-api-key": apiKey,
			authorization: null,
			...model.headers,
			...options.headers,
		},
		logger: stderrLogger,
	});
	try {
		const stream = await client.messages.create(request, { signal: options.signal });
		const reader = new AnthropicEventReader(out);
		for await (const event of stream) reader.handle(event);
		// The SDK ends the iteration quietly when the request is aborted.
		if (options.signal?.aborted) throw new Error("Request was aborted");
		reader.finish();
	} catch (error) {
		throw toReplyError(error);
	}
}
