import type { ProviderErrorKind } from "../../llm/errors.js";
import type { AssistantMessage, Model } from "../../llm/types.js";
import type { AgentSessionEvent } from "../facade/events.js";
import type { ModelState } from "./model-state.js";

/** Failures another model can get past: the provider is overloaded, failing, limiting or out of quota. */
const FALLBACK_KINDS: ReadonlySet<ProviderErrorKind> = new Set([
	"overloaded",
	"server_error",
	"rate_limit",
	"timeout",
	"network",
	"quota",
]);

export type FallbackReason = "context_overflow" | ProviderErrorKind;

/** `provider/id`, as fallback patterns and events name a model. */
export function modelName(model: Pick<Model, "provider" | "id">): string {
	return `${model.provider}/${model.id}`;
}

/**
 * Whether `model` matches a fallback pattern: `provider/id`, a bare `id`, or either with `*`
 * standing for any run of characters (`openai/*`, `*\/claude-sonnet-*`).
 */
export function matchesPattern(model: Pick<Model, "provider" | "id">, pattern: string): boolean {
	const target = pattern.includes("/") ? modelName(model) : model.id;
	if (!pattern.includes("*")) return target === pattern;
	const parts = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
	return new RegExp(`^${parts.join(".*")}$`, "s").test(target);
}

export interface ModelFallbackHost {
	/** The current model, the authenticated ones, and the switch that does not change saved defaults. */
	models: Pick<ModelState, "model" | "available" | "fallBackTo">;
	/** The configured tiers (`fallbackModels`), in order. */
	tiers(): readonly string[];
	/** The current context size estimate; null when unknown. */
	contextTokens(): number | null;
	events: { emit(event: AgentSessionEvent): unknown };
}

/**
 * Model fallback: when a prompt's run failed for good (its retries spent) with a failure another
 * model can get past, or its context still overflows after compaction, the prompt goes on with
 * the next model of the configured tiers that is authenticated and whose window is large enough.
 * Authentication and request errors never fall back.
 */
export class ModelFallback {
	constructor(private readonly host: ModelFallbackHost) {}

	/**
	 * After a run ended: `reply` is its last assistant message; `overflow` is set when compaction
	 * could not make the context fit. Switches to the next tier and returns true when the prompt
	 * should continue there.
	 */
	afterRun(reply: AssistantMessage | undefined, overflow: boolean): boolean {
		const reason = this.reasonFor(reply, overflow);
		const current = this.host.models.model;
		if (!reason || !current) return false;
		const next = this.nextTier(current, reason);
		if (!next) return false;
		const unsaved = this.host.models.fallBackTo(next);
		if (unsaved) {
			this.host.events.emit({ type: "warning", message: `No fallback to ${modelName(next)}: ${unsaved.message}` });
			return false;
		}
		this.host.events.emit({ type: "model_fallback", from: modelName(current), to: modelName(next), reason });
		return true;
	}

	private reasonFor(reply: AssistantMessage | undefined, overflow: boolean): FallbackReason | undefined {
		if (this.host.tiers().length === 0) return undefined;
		if (overflow) return "context_overflow";
		if (reply?.stopReason !== "error" || !reply.error) return undefined;
		return FALLBACK_KINDS.has(reply.error.kind) ? reply.error.kind : undefined;
	}

	/** The first model after `current` in tier order that is available and fits. */
	private nextTier(current: Model, reason: FallbackReason): Model | undefined {
		const available = this.host.models.available();
		const ordered: Model[] = [];
		for (const pattern of this.host.tiers()) {
			for (const model of available) {
				if (matchesPattern(model, pattern) && !ordered.includes(model)) ordered.push(model);
			}
		}
		const position = ordered.findIndex((model) => model.provider === current.provider && model.id === current.id);
		const needed = this.host.contextTokens() ?? 0;
		return ordered.slice(position + 1).find((model) => {
			if (model.provider === current.provider && model.id === current.id) return false;
			if (reason === "context_overflow") return model.contextWindow > current.contextWindow;
			return model.contextWindow > needed;
		});
	}
}
