// What `@earendil-works/pi-ai` (and `@mariozechner/pi-ai`, and their `/compat` entry) resolve to
// inside an extension: TypeBox's `Type` and `StringEnum` for tool schemas, the message types, the
// built-in model catalog and streaming through Atomic's providers. Provider registration and
// OAuth are stand-ins that name themselves when used.
import { type TUnsafe, Type } from "typebox";
import { builtInModels, builtInProviders } from "../../llm/catalog.js";
import { PROVIDER_ENV_VARS } from "../../llm/credentials.js";
import { AssistantMessageEventStream } from "../../llm/event-stream.js";
import { streamModel } from "../../llm/registry.js";
import type { AssistantMessage, Context, Model, StreamOptions } from "../../llm/types.js";

export type { Static, TSchema } from "typebox";
export { calculateCost } from "../../llm/cost.js";
export { AssistantMessageEventStream } from "../../llm/event-stream.js";
export type {
	Api,
	AssistantMessage,
	AssistantMessageEvent,
	Context,
	ImageContent,
	Message,
	Model,
	StopReason,
	StreamOptions,
	TextContent,
	ThinkingContent,
	ThinkingLevel,
	Tool,
	ToolCall,
	ToolResultMessage,
	Usage,
	UserMessage,
} from "../../llm/types.js";
export { uuidv7 } from "../../session/ids.js";
export { Type };

/**
 * A string enum schema written as `{type: "string", enum: [...]}` (which every provider accepts,
 * unlike unions of literals), typed for `Static`.
 */
export function StringEnum<T extends readonly string[]>(
	values: T,
	options: { description?: string; default?: T[number] } = {},
): TUnsafe<T[number]> {
	return Type.Unsafe<T[number]>({
		type: "string",
		enum: [...values],
		...(options.description ? { description: options.description } : {}),
		...(options.default ? { default: options.default } : {}),
	});
}

export function createAssistantMessageEventStream(): AssistantMessageEventStream {
	return new AssistantMessageEventStream();
}

/** A built-in model by provider and id (the catalog only; models.json is read by ctx.modelRegistry). */
export function getModel(provider: string, modelId: string): Model | undefined {
	return builtInModels().find((model) => model.provider === provider && model.id === modelId);
}

export function getModels(provider: string): Model[] {
	return builtInModels().filter((model) => model.provider === provider);
}

export function getProviders(): string[] {
	return builtInProviders();
}

/** The provider's key from its environment variable, when the caller passed none. */
function withEnvironmentKey(model: Model, options: StreamOptions): StreamOptions {
	if (options.apiKey !== undefined) return options;
	const variable = (PROVIDER_ENV_VARS[model.provider] ?? []).find((name) => process.env[name]);
	return variable ? { ...options, apiKey: process.env[variable] } : options;
}

/** Streams a reply through Atomic's provider for the model's api; the key comes from the options or the environment. */
export function stream(model: Model, context: Context, options: StreamOptions = {}): AssistantMessageEventStream {
	return streamModel(model, context, withEnvironmentKey(model, options));
}

export const streamSimple = stream;

/** Like `stream`, resolving with the final message (an error reply has `stopReason: "error"`). */
export function complete(model: Model, context: Context, options: StreamOptions = {}): Promise<AssistantMessage> {
	return stream(model, context, options).result();
}

export const completeSimple = complete;
