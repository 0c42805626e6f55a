import type { AssistantStreamBuilder } from "../stream-builder.js";
import type { Context, Model, StreamOptions } from "../types.js";
import { connectOpenAI, type OpenAIConnection, warmUpClient } from "./openai-client.js";
import { CompletionsStreamReader } from "./openai-completions-reader.js";
import { buildCompletionsRequest } from "./openai-completions-request.js";
import { cannedEventStream } from "./warm-up.js";

export async function streamReply(
	model: Model,
	context: Context,
	options: StreamOptions,
	out: AssistantStreamBuilder,
): Promise<void> {
	await streamWith(connectOpenAI(model, options), model, context, options, out);
}

async function streamWith(
	{ client, toFailure }: OpenAIConnection,
	model: Model,
	context: Context,
	options: StreamOptions,
	out: AssistantStreamBuilder,
): Promise<void> {
	const request = buildCompletionsRequest(model, context, options);
	const reader = new CompletionsStreamReader(out);
	try {
		const stream = await client.chat.completions.create(request, { signal: options.signal });
		out.start();
		for await (const chunk of stream) reader.read(chunk);
	} catch (error) {
		throw toFailure(error);
	}
	// The SDK ends the iteration quietly when the signal fires.
	if (options.signal?.aborted) throw new Error("Request was aborted");
	// The iteration also ends at `data: [DONE]` or a clean end of the body: the reply is complete.
	out.finish(reader.stopReason());
}

const chunk = (delta: object, finish: string | null) => ({
	id: "chatcmpl-warm-up",
	object: "chat.completion.chunk",
	created: 0,
	model: "warm-up",
	choices: [{ index: 0, delta, finish_reason: finish }],
});

/** A reply with a text and a tool call, as Chat Completions streams it. */
const WARM_UP_EVENTS = [
	chunk({ role: "assistant", content: "ok" }, null),
	chunk(
		{ tool_calls: [{ index: 0, id: "call_warm", type: "function", function: { name: "warm", arguments: "{}" } }] },
		null,
	),
	chunk({}, "tool_calls"),
];

/** The canned reply to a request whose last message is a tool result: a text. */
const WARM_UP_TEXT_EVENTS = [chunk({ role: "assistant", content: "ok" }, null), chunk({}, "stop")];

/** streamReply's own code against a canned reply (see ProviderModule.rehearseReply in registry.ts). */
export async function rehearseReply(
	model: Model,
	context: Context,
	options: StreamOptions,
	out: AssistantStreamBuilder,
): Promise<void> {
	const events = context.messages.at(-1)?.role === "toolResult" ? WARM_UP_TEXT_EVENTS : WARM_UP_EVENTS;
	const client = warmUpClient(cannedEventStream(events, false));
	await streamWith({ client, toFailure: (error) => error }, model, context, options, out);
}

/** Runs one streamed request through the SDK against a canned reply (no network): see anthropic-messages.ts. */
export async function warmUp(): Promise<void> {
	const client = warmUpClient(cannedEventStream(WARM_UP_EVENTS, false));
	const stream = await client.chat.completions.create({
		model: "warm-up",
		messages: [{ role: "user", content: "." }],
		stream: true,
	});
	for await (const part of stream) if (part.choices[0]?.finish_reason) break;
}
