import type { AssistantMessageEventStream } from "../llm/event-stream.js";
import type { ModelRegistry } from "../llm/model-registry.js";
import { streamModel } from "../llm/registry.js";
import type { AssistantMessage, Context, Model, StreamOptions } from "../llm/types.js";
import { unavailable } from "./compat/unavailable.js";

/** pi's answer to `getApiKeyAndHeaders`. */
export type ResolvedRequestAuth =
	| { ok: true; apiKey?: string; headers?: Record<string, string> }
	| { ok: false; error: string };

/**
 * `ctx.modelRegistry`: the models Atomic knows (catalog and models.json) with their credentials,
 * and model calls that resolve those credentials. Non-chat models, provider registration and
 * OAuth are stand-ins that throw a named error.
 */
export interface ModelRegistryView {
	getAll(): Model[];
	getAvailable(): Model[];
	find(provider: string, modelId: string): Model | undefined;
	hasConfiguredAuth(model: Model): boolean;
	getApiKeyAndHeaders(model: Model): Promise<ResolvedRequestAuth>;
	getApiKeyForProvider(provider: string): Promise<string | undefined>;
	getProviderAuthStatus(provider: string): ReturnType<ModelRegistry["authStatus"]>;
	getProviderDisplayName(provider: string): string;
	/** models.json problems, one per line; undefined when there are none. */
	getError(): string | undefined;
	isUsingOAuth(model: Model): boolean;
	/** Reads models.json again. */
	refresh(): Promise<void>;
	/** Streams a reply with the model's credentials (an error reply when they are missing). */
	stream(model: Model, context: Context, options?: StreamOptions): AssistantMessageEventStream;
	streamSimple(model: Model, context: Context, options?: StreamOptions): AssistantMessageEventStream;
	complete(model: Model, context: Context, options?: StreamOptions): Promise<AssistantMessage>;
	[member: string]: unknown;
}

const NOT_HERE = [
	"findOfType",
	"getModelsOfType",
	"getAvailableOfType",
	"getModelOfType",
	"classify",
	"generateImages",
	"getProvider",
	"getProviderAuth",
	"registerProvider",
	"unregisterProvider",
	"registerVirtualModel",
	"unregisterVirtualModel",
	"getRegisteredProviderConfig",
	"getRegisteredNativeProvider",
	"getRegisteredProviderIds",
];

export function createModelRegistryView(registry: () => ModelRegistry): ModelRegistryView {
	const auth = (model: Model): ResolvedRequestAuth => {
		try {
			const { apiKey, headers } = registry().requestAuth(model);
			return apiKey === undefined ? { ok: true, headers } : { ok: true, apiKey, headers };
		} catch (error) {
			return { ok: false, error: error instanceof Error ? error.message : String(error) };
		}
	};
	const stream = (model: Model, context: Context, options: StreamOptions = {}) => {
		const resolved = auth(model);
		const withAuth: StreamOptions = resolved.ok
			? { ...options, apiKey: options.apiKey ?? resolved.apiKey, headers: { ...resolved.headers, ...options.headers } }
			: options;
		return streamModel(model, context, withAuth);
	};
	const view: ModelRegistryView = {
		getAll: () => registry().all(),
		getAvailable: () => registry().available(),
		find: (provider, modelId) => registry().find(provider, modelId),
		hasConfiguredAuth: (model) => registry().hasCredentials(model.provider),
		getApiKeyAndHeaders: async (model) => auth(model),
		getApiKeyForProvider: async (provider) => {
			const model = registry()
				.all()
				.find((candidate) => candidate.provider === provider);
			const resolved = model ? auth(model) : undefined;
			return resolved?.ok ? resolved.apiKey : undefined;
		},
		getProviderAuthStatus: (provider) => registry().authStatus(provider),
		getProviderDisplayName: (provider) => provider,
		getError: () => (registry().errors.length > 0 ? registry().errors.join("\n") : undefined),
		isUsingOAuth: () => false,
		refresh: async () => registry().reload(),
		stream,
		streamSimple: stream,
		complete: (model, context, options) => stream(model, context, options).result(),
	};
	for (const name of NOT_HERE)
		view[name] = unavailable(
			`ctx.modelRegistry.${name}`,
			"Atomic has chat models only, from its catalog and models.json",
		);
	return view;
}
