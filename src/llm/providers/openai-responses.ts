import { ProviderFailure, providerError } from "../errors.js";
import type { AssistantStreamBuilder } from "../stream-builder.js";
import type { Context, Model, StreamOptions } from "../types.js";
import { connectOpenAI } from "./openai-client.js";
import { ResponsesStreamReader } from "./openai-responses-events.js";
import { buildResponsesRequest } from "./openai-responses-request.js";

export async function streamReply(
	model: Model,
	context: Context,
	options: StreamOptions,
	out: AssistantStreamBuilder,
): Promise<void> {
	const { client, toFailure } = connectOpenAI(model, options);
	const request = buildResponsesRequest(model, context, options);
	const reader = new ResponsesStreamReader(out);
	try {
		const stream = await client.responses.create(request, { signal: options.signal });
		out.start();
		for await (const event of stream) reader.read(event);
	} catch (error) {
		throw toFailure(error);
	}
	// The SDK ends the iteration quietly when the signal fires.
	if (options.signal?.aborted) throw new Error("Request was aborted");
	const reason = reader.stopReason;
	if (!reason) {
		throw new ProviderFailure("Provider stream ended without response.completed", providerError("network"));
	}
	out.finish(reason);
}
