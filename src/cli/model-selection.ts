import type { ModelRegistry } from "../llm/model-registry.js";
import { resolveModelPattern } from "../llm/model-resolver.js";
import { clampThinkingLevel } from "../llm/thinking.js";
import type { Model, ThinkingLevel } from "../llm/types.js";
import type { Settings } from "../resources/settings.js";

export interface ModelChoice {
	model: Model;
	thinkingLevel: ThinkingLevel;
	warnings: string[];
}

/**
 * The model for a run started from the command line: `--model`/`--provider`, else the settings'
 * default, else the first model with credentials. Throws a message for the user when none fits.
 */
export function chooseModel(
	registry: ModelRegistry,
	settings: Settings,
	flags: { model?: string; provider?: string; thinking?: string },
): ModelChoice {
	const warnings: string[] = [];
	let model: Model | undefined;
	let level: string | undefined;
	if (flags.model) {
		const resolved = resolveModelPattern(registry, flags.model, flags.provider);
		model = resolved.model;
		level = resolved.thinkingLevel;
		if (resolved.warning) warnings.push(resolved.warning);
	} else if (flags.provider) {
		if (!registry.isKnownProvider(flags.provider)) {
			throw new Error(`Unknown provider "${flags.provider}". Use --list-models to see available providers/models.`);
		}
		model = registry.all().find((candidate) => candidate.provider === flags.provider);
	}
	if (!model && settings.defaultProvider && settings.defaultModel) {
		model = registry.find(settings.defaultProvider, settings.defaultModel);
	}
	model ??= registry.available()[0];
	if (!model) {
		throw new Error(
			"No model available. Set an API key (ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY) or add a provider to models.json.",
		);
	}
	const requested = flags.thinking ?? level ?? settings.defaultThinkingLevel ?? "medium";
	return { model, thinkingLevel: clampThinkingLevel(model, requested), warnings };
}
