import type { AssistantStreamBuilder } from "../stream-builder.js";
import type { Context, Model, StreamOptions } from "../types.js";
import { connectOpenAI, type OpenAIConnection } from "./openai-client.js";
import { CompletionsStreamReader } from "./openai-completions-reader.js";
import { buildCompletionsRequest } from "./openai-completions-request.js";

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
