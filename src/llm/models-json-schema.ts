import type { Static } from "typebox";
import { Type } from "./schema-builders.js";
import { APIS, THINKING_LEVELS } from "./types.js";

/**
 * The schema of `<agentDir>/models.json`, checked one level at a time so that a bad model or
 * override is skipped while the rest loads. Unknown keys are allowed (other tools' files carry
 * more). Each leaf's `description` is the "expected ..." of its error message.
 */

const nonEmpty = (what = "a non-empty string") => Type.String({ minLength: 1, pattern: "\\S", description: what });
const flag = () => Type.Optional(Type.Boolean({ description: "true or false" }));
const oneOf = <const T extends string[]>(values: readonly [...T]) =>
	Type.Enum(values, { description: `one of ${values.map((value) => JSON.stringify(value)).join(", ")}` });

const Api = oneOf(APIS);
const Headers = Type.Record(Type.String(), Type.String({ description: "a string" }), {
	description: "an object of string values",
});
const Positive = Type.Number({ exclusiveMinimum: 0, description: "a number > 0" });
const Price = Type.Optional(Type.Number({ minimum: 0, description: "a number >= 0" }));

export const CompatSchema = Type.Object(
	{
		supportsStore: flag(),
		supportsDeveloperRole: flag(),
		supportsReasoningEffort: flag(),
		supportsUsageInStreaming: flag(),
		maxTokensField: Type.Optional(oneOf(["max_tokens", "max_completion_tokens"])),
		requiresToolResultName: flag(),
		requiresThinkingAsText: flag(),
		thinkingFormat: Type.Optional(oneOf(["reasoning_effort", "openrouter", "qwen", "none"])),
		sendReasoning: Type.Optional(oneOf(["tool-loop", "tool-turns", "always"])),
		forceAdaptiveThinking: flag(),
		supportsStrictTools: flag(),
		supportsStrictMode: flag(),
		supportsOpenAIGrammarTools: flag(),
		supportsGrammarTools: flag(),
	},
	{ description: "an object" },
);

const ThinkingLevelMap = Type.Object(
	Object.fromEntries(
		THINKING_LEVELS.map((level) => [
			level,
			Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "a string or null" })),
		]),
	),
	{ additionalProperties: false, description: `an object keyed by thinking level (${THINKING_LEVELS.join(", ")})` },
);

const modelFields = {
	name: Type.Optional(nonEmpty()),
	api: Type.Optional(Api),
	baseUrl: Type.Optional(nonEmpty()),
	reasoning: flag(),
	thinkingLevelMap: Type.Optional(ThinkingLevelMap),
	input: Type.Optional(
		Type.Array(oneOf(["text", "image"]), { minItems: 1, description: 'a non-empty array of "text" and "image"' }),
	),
	contextWindow: Type.Optional(Positive),
	maxTokens: Type.Optional(Positive),
	cost: Type.Optional(
		Type.Object(
			{ input: Price, output: Price, cacheRead: Price, cacheWrite: Price },
			{ description: "an object of prices (input, output, cacheRead, cacheWrite)" },
		),
	),
	headers: Type.Optional(Headers),
	compat: Type.Optional(CompatSchema),
};

export const ModelSchema = Type.Object({ id: nonEmpty(), ...modelFields }, { description: "an object" });
export const ModelOverrideSchema = Type.Object(modelFields, { description: "an object" });

export const ProviderSchema = Type.Object(
	{
		baseUrl: Type.Optional(nonEmpty()),
		api: Type.Optional(Api),
		apiKey: Type.Optional(Type.String({ description: 'a string ("$VAR", "!command" or the key)' })),
		authHeader: flag(),
		headers: Type.Optional(Headers),
		compat: Type.Optional(CompatSchema),
		// Checked on their own: a bad list is reported and skipped, the provider still loads.
		models: Type.Optional(Type.Unknown()),
		modelOverrides: Type.Optional(Type.Unknown()),
	},
	{ description: "an object" },
);

export const ModelListSchema = Type.Array(Type.Unknown(), { description: "an array of models" });
export const ModelOverridesSchema = Type.Record(Type.String(), Type.Unknown(), {
	description: "an object keyed by model id",
});

export const ModelsFileSchema = Type.Object(
	{ providers: Type.Record(Type.String(), Type.Unknown(), { description: "an object keyed by provider name" }) },
	{ description: 'an object with a "providers" object' },
);

export type CompatConfig = Static<typeof CompatSchema>;
export type ModelEntry = Static<typeof ModelSchema>;
export type ModelOverrideEntry = Static<typeof ModelOverrideSchema>;
export type ProviderEntry = Static<typeof ProviderSchema>;
