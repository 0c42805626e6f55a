import { Console } from "node:console";
import { BaseAnthropic } from "@anthropic-ai/sdk";
import { Messages } from "@anthropic-ai/sdk/resources/messages";
import { providerFetch } from "../http-transport.js";
import type { AssistantStreamBuilder } from "../stream-builder.js";
import type { Context, Model, StreamOptions } from "../types.js";
import { toReplyError } from "./anthropic-errors.js";
import { AnthropicEventReader } from "./anthropic-events.js";
import { buildAnthropicRequest } from "./anthropic-request.js";

/** Sent when no key is configured (local servers need none); the runtime checked beforehand. */
const PLACEHOLDER_API_KEY = "atomic-no-key";

/**
 * The SDK's client with only the Messages resource. The full `Anthropic` client builds every
 * resource (beta, files, skills, organization…) and bundles about four times the code, which a
 * first prompt would pay to compile.
 */
class MessagesClient extends BaseAnthropic {
	readonly messages: Messages = new Messages(this);
}

// stdout may carry the RPC protocol: the SDK's own log lines go to stderr.
const stderrLogger = new Console(process.stderr);

/** Clients kept for reuse, by what they were built from: building one costs more than a small request. */
const clients = new Map<string, MessagesClient>();
const MAX_CLIENTS = 8;

/** The SDK client for this key, base URL and headers; the same one for every request that shares them. */
function clientFor(apiKey: string, baseURL: string, headers: Record<string, string>): MessagesClient {
	const key = JSON.stringify([apiKey, baseURL, headers]);
	const known = clients.get(key);
	if (known) {
		// Most recently used last: the first is the one to drop.
		clients.delete(key);
		clients.set(key, known);
		return known;
	}
	const client = new MessagesClient({
		apiKey,
		baseURL,
		maxRetries: 0, // retries are the agent's job
		defaultHeaders: {
			// The Messages API and compatible servers take the key as x-api-key; this SDK version would
			// send it as a bearer token, so that header is dropped unless the model's headers set one.
			"x-api-key": apiKey,
			authorization: null,
			...headers,
		},
		logger: stderrLogger,
		fetch: providerFetch,
	});
	clients.set(key, client);
	if (clients.size > MAX_CLIENTS) {
		const oldest = clients.keys().next().value;
		if (oldest !== undefined) clients.delete(oldest);
	}
	return client;
}

/** Streams one reply from the Anthropic Messages API (see ProviderModule in registry.ts). */
export async function streamReply(
	model: Model,
	context: Context,
	options: StreamOptions,
	out: AssistantStreamBuilder,
): Promise<void> {
	const apiKey = options.apiKey ?? PLACEHOLDER_API_KEY;
	const client = clientFor(apiKey, model.baseUrl, { ...model.headers, ...options.headers });
	await streamWith(client, model, context, options, out);
}

async function streamWith(
	client: MessagesClient,
	model: Model,
	context: Context,
	options: StreamOptions,
	out: AssistantStreamBuilder,
): Promise<void> {
	const request = buildAnthropicRequest(model, context, options);
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
