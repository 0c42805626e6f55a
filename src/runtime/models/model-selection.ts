import type { ModelRegistry } from "../../llm/model-registry.js";
import { resolveModelPattern } from "../../llm/model-resolver.js";
import { clampThinkingLevel, isThinkingLevel } from "../../llm/thinking.js";
import type { Model, ThinkingLevel } from "../../llm/types.js";
import type { Settings } from "../../resources/settings.js";

export const UNSUPPORTED_DEFAULT_MESSAGE =
	"Configured default model is unavailable or unsupported. Update defaultProvider/defaultModel or use /model.";

export const DEFAULT_THINKING_LEVEL: ThinkingLevel = "medium";

/** The model choices made at launch (--model, --provider, --thinking); each replacement applies them again. */
export interface ModelChoices {
	model?: string;
	provider?: string;
	thinking?: string;
}

export interface ModelSelectionInput {
	registry: ModelRegistry;
	settings: Settings;
	/** --model and --provider. */
	cliModel?: string;
	cliProvider?: string;
	/** --thinking. */
	cliThinking?: string;
	/** What the session's entries replay. */
	sessionModel?: { provider: string; modelId: string };
	sessionThinking?: string;
}

export interface ModelSelection {
	model: Model | undefined;
	thinkingLevel: ThinkingLevel;
	/** The level asked for before clamping; a later model that supports it gets it back. */
	requestedThinkingLevel?: ThinkingLevel;
	/** Set when prompts must be refused until an explicit model choice (saved default names an unknown provider). */
	blockedReason?: string;
	warnings: string[];
}

/**
 * Picks the model for a session: --model/--provider, else the session's own model, else the
 * settings' default, else the first model with credentials. A saved default whose provider is not
 * known at all blocks prompts (the process stays up) until the client picks a model.
 */
export function selectModel(input: ModelSelectionInput): ModelSelection {
	const { registry, settings } = input;
	const warnings: string[] = [];
	let model: Model | undefined;
	let suffixLevel: ThinkingLevel | undefined;
	if (input.cliModel) {
		const resolved = resolveModelPattern(registry, input.cliModel, input.cliProvider);
		model = resolved.model;
		suffixLevel = resolved.thinkingLevel;
		if (resolved.warning) warnings.push(resolved.warning);
	} else if (input.cliProvider) {
		const provider = input.cliProvider.toLowerCase();
		model = registry.all().find((candidate) => candidate.provider.toLowerCase() === provider);
		if (!model) {
			throw new Error(`Unknown provider "${input.cliProvider}". Use --list-models to see available providers/models.`);
		}
	}
	let restored = false;
	if (!model && input.sessionModel) {
		model = registry.find(input.sessionModel.provider, input.sessionModel.modelId);
		restored = model !== undefined;
	}
	let blockedReason: string | undefined;
	if (!model && settings.defaultProvider && settings.defaultModel) {
		const saved = registry.find(settings.defaultProvider, settings.defaultModel);
		if (saved && registry.hasCredentials(saved.provider)) model = saved;
		else if (!registry.isKnownProvider(settings.defaultProvider)) blockedReason = UNSUPPORTED_DEFAULT_MESSAGE;
	}
	if (!model && !blockedReason) model = registry.available()[0];
	const requested =
		input.cliThinking ??
		suffixLevel ??
		(restored ? input.sessionThinking : undefined) ??
		settings.defaultThinkingLevel ??
		DEFAULT_THINKING_LEVEL;
	if (input.cliThinking !== undefined && !isThinkingLevel(input.cliThinking)) {
		warnings.push(`Unknown thinking level "${input.cliThinking}"; using the model's nearest level.`);
	}
	const thinkingLevel = clampThinkingLevel(model, requested);
	const requestedThinkingLevel = isThinkingLevel(requested) ? requested : thinkingLevel;
	return { model, thinkingLevel, requestedThinkingLevel, blockedReason, warnings };
}

export interface CycleResult {
	model: Model;
	thinkingLevel: ThinkingLevel;
	isScoped: boolean;
}

/** A Model as clients see it: headers stay inside, credentials in the base URL are redacted. */
export { publicModel } from "../../llm/model-redaction.js";
