import type { AssistantStreamBuilder } from "../stream-builder.js";
import type { Context, Model, StreamOptions } from "../types.js";

export async function streamReply(
	_model: Model,
	_context: Context,
	_options: StreamOptions,
	_out: AssistantStreamBuilder,
): Promise<void> {
	throw new Error("anthropic-messages is not implemented yet");
}
