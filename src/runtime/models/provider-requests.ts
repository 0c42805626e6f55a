import type { ModelRegistry } from "../../llm/model-registry.js";
import type { Model, StreamOptions, ThinkingLevel } from "../../llm/types.js";

export interface ProviderRequestSettings {
	thinkingBudgets?: Partial<Record<ThinkingLevel, number>>;
	streamIdleTimeoutMs?: number;
}

/** Key, headers and transport options for requests to a model, for the current session. */
export class ProviderRequests {
	constructor(
		private readonly registry: ModelRegistry,
		private readonly current: { readonly session: { readonly id: string } },
		private readonly settings: ProviderRequestSettings,
	) {}

	/** Throws when the model's provider has no credential. */
	options(model: Model): StreamOptions {
		const auth = this.registry.requestAuth(model);
		return {
			apiKey: auth.apiKey,
			headers: auth.headers,
			thinkingBudgets: this.settings.thinkingBudgets,
			idleTimeoutMs: this.settings.streamIdleTimeoutMs,
			sessionId: this.current.session.id,
		};
	}
}
