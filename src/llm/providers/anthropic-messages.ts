import { Console } from "node:console";
import { BaseAnthropic } from "@anthropic-ai/sdk";
import { Messages } from "@anthropic-ai/sdk/resources/messages";
import { providerFetch } from "../http-transport.js";
import type { AssistantStreamBuilder } from "../stream-builder.js";
import type { Context, Model, StreamOptions } from "../types.js";
import { toReplyError } from "./anthropic-errors.js";
import { AnthropicEventReader } from "./anthropic-events.js";
import { buildAnthropicRequest } from "./anthropic-request.js";
import { cannedEventStream, WARM_UP_BASE_URL } from "./warm-up.js";

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

/** A reply with a text and a tool call, as the Messages API streams it. */
const WARM_UP_EVENTS = [
	{
		type: "message_start",
		message: {
			id: "msg_warm_up",
			type: "message",
			role: "assistant",
			model: "warm-up",
			content: [],
			stop_reason: null,
			stop_sequence: null,
			usage: { input_tokens: 1, output_tokens: 0 },
		},
	},
	{ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
	{ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ok" } },
	{ type: "content_block_stop", index: 0 },
	{
		type: "content_block_start",
		index: 1,
		content_block: { type: "tool_use", id: "toolu_warm", name: "warm", input: {} },
	},
	{ type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"a":1}' } },
	{ type: "content_block_stop", index: 1 },
	{ type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 2 } },
	{ type: "message_stop" },
];

/** The canned reply to a request whose last message is a tool result: a text. */
const WARM_UP_TEXT_EVENTS = [
	WARM_UP_EVENTS[0],
	...WARM_UP_EVENTS.slice(1, 4),
	{ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 1 } },
	{ type: "message_stop" },
];

function warmUpClient(events: readonly object[]): MessagesClient {
	return new MessagesClient({
		apiKey: PLACEHOLDER_API_KEY,
		baseURL: WARM_UP_BASE_URL,
		maxRetries: 0,
		logger: stderrLogger,
		fetch: cannedEventStream(events, true),
	});
}

/**
 * streamReply's own code (request building, the SDK, the event reader) against a canned reply
 * instead of the network: a text and a call to the tool `warm`, or only a text once the context
 * ends with a tool result (see ProviderModule.rehearseReply in registry.ts).
 */
export async function rehearseReply(
	model: Model,
	context: Context,
	options: StreamOptions,
	out: AssistantStreamBuilder,
): Promise<void> {
	const afterTool = context.messages.at(-1)?.role === "toolResult";
	await streamWith(warmUpClient(afterTool ? WARM_UP_TEXT_EVENTS : WARM_UP_EVENTS), model, context, options, out);
}

/**
 * Runs one streamed request through the SDK and the event reader against a canned reply (no
 * network), so that the first real request does not compile their code paths.
 */
export async function warmUp(): Promise<void> {
	const client = warmUpClient(WARM_UP_EVENTS);
	const stream = await client.messages.create({
		model: "warm-up",
		max_tokens: 1,
		messages: [{ role: "user", content: "." }],
		stream: true,
	});
	for await (const event of stream) if (event.type === "message_stop") break;
}
