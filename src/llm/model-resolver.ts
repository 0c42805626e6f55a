import type { ModelRegistry } from "./model-registry.js";
import { isThinkingLevel } from "./thinking.js";
import type { Model, ThinkingLevel } from "./types.js";

export interface ResolvedModel {
	model: Model;
	/** Set when the pattern ended in `:<level>`. */
	thinkingLevel?: ThinkingLevel;
	/** A non-fatal note for stderr (e.g. an unknown id used as a custom model). */
	warning?: string;
}

const DATED_SUFFIX = /-\d{8}$/;

/**
 * Resolves a `--model` pattern (`id`, `provider/id`, fuzzy text, optional `:<thinking>` suffix)
 * and an optional `--provider`. Throws an Error whose message is meant for the user.
 */
export function resolveModelPattern(registry: ModelRegistry, pattern: string, providerFlag?: string): ResolvedModel {
	const provider = providerFlag === undefined ? undefined : canonicalProvider(registry, providerFlag);
	if (providerFlag !== undefined && provider === undefined) {
		throw new Error(`Unknown provider "${providerFlag}". Use --list-models to see available providers/models.`);
	}
	const whole = match(registry, pattern, provider);
	if (whole) return { model: whole };
	const colon = pattern.lastIndexOf(":");
	const suffix = colon > 0 ? pattern.slice(colon + 1) : "";
	if (colon > 0 && isThinkingLevel(suffix)) {
		const base = pattern.slice(0, colon);
		const model = match(registry, base, provider);
		if (model) return { model, thinkingLevel: suffix };
		const custom = customModel(registry, base, provider, suffix);
		if (custom) return { ...custom, thinkingLevel: suffix };
	}
	const custom = customModel(registry, pattern, provider);
	if (custom) return custom;
	const display = provider ? `${provider}/${pattern}` : pattern;
	throw new Error(`Model "${display}" not found. Use --list-models to see available models.`);
}

function canonicalProvider(registry: ModelRegistry, name: string): string | undefined {
	const lower = name.toLowerCase();
	return (
		registry.providers().find((candidate) => candidate.toLowerCase() === lower) ??
		(registry.isKnownProvider(name) ? name : undefined)
	);
}

/** Splits `provider/id` when the prefix names a known provider. */
function splitProvider(
	registry: ModelRegistry,
	pattern: string,
	provider: string | undefined,
): [string | undefined, string] {
	if (provider) return [provider, pattern];
	const slash = pattern.indexOf("/");
	if (slash <= 0) return [undefined, pattern];
	const prefix = canonicalProvider(registry, pattern.slice(0, slash));
	return prefix ? [prefix, pattern.slice(slash + 1)] : [undefined, pattern];
}

function match(registry: ModelRegistry, pattern: string, providerFlag: string | undefined): Model | undefined {
	const [provider, id] = splitProvider(registry, pattern, providerFlag);
	const candidates = registry.all().filter((model) => !provider || model.provider === provider);
	const exact = candidates.filter((model) => model.id === id || (!provider && `${model.provider}/${model.id}` === id));
	if (exact.length === 1) return exact[0];
	if (exact.length > 1) throw ambiguous(id, exact);
	// Router-style ids look like provider/id themselves ("anthropic/claude-x" served by openrouter).
	if (!providerFlag && id !== pattern) {
		const whole = registry.all().filter((model) => model.id === pattern);
		if (whole.length === 1) return whole[0];
		if (whole.length > 1) throw ambiguous(pattern, whole);
	}
	const needle = id.toLowerCase();
	const sameId = candidates.filter((model) => model.id.toLowerCase() === needle);
	const fuzzy = sameId.length
		? sameId
		: candidates.filter(
				(model) => model.id.toLowerCase().includes(needle) || model.name.toLowerCase().includes(needle),
			);
	if (fuzzy.length === 0) return undefined;
	return [...fuzzy].sort(preferAliasesThenHighest)[0];
}

function ambiguous(id: string, models: Model[]): Error {
	const names = models.map((model) => `${model.provider}/${model.id}`).join(", ");
	return new Error(`Model "${id}" is ambiguous across providers: ${names}. Use --provider or provider/model.`);
}

function preferAliasesThenHighest(a: Model, b: Model): number {
	const aliasA = DATED_SUFFIX.test(a.id) ? 1 : 0;
	const aliasB = DATED_SUFFIX.test(b.id) ? 1 : 0;
	if (aliasA !== aliasB) return aliasA - aliasB;
	return b.id.localeCompare(a.id, undefined, { numeric: true });
}

/** An unknown id under a known provider becomes a copy of that provider's first model. */
function customModel(
	registry: ModelRegistry,
	pattern: string,
	providerFlag: string | undefined,
	thinking?: ThinkingLevel,
): ResolvedModel | undefined {
	const [provider, id] = splitProvider(registry, pattern, providerFlag);
	if (!provider || !id) return undefined;
	const template = registry.all().find((model) => model.provider === provider);
	if (!template) return undefined;
	const model: Model = { ...template, id, name: id };
	if (thinking && thinking !== "off") model.reasoning = true;
	return {
		model,
		warning: `Model "${id}" not found for provider "${provider}". Using custom model id.`,
	};
}
