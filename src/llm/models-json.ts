import { existsSync } from "node:fs";
import { MAX_CONFIG_FILE_BYTES, readOptionalTextFileSync } from "../platform/regular-file.js";
import { type ConfigProblem, configCheck, keyPath, preloadConfigValidator } from "./config-validator.js";
import {
	type CompatConfig,
	type ModelEntry,
	ModelListSchema,
	type ModelOverrideEntry,
	ModelOverrideSchema,
	ModelOverridesSchema,
	ModelSchema,
	ModelsFileSchema,
	ProviderSchema,
} from "./models-json-schema.js";
import type { Api, ModelCompat, ModelCost, ThinkingLevelMap } from "./types.js";

/** One model as models.json declares it: only `id` is required. */
export interface ModelConfig {
	id: string;
	name?: string;
	api?: Api;
	baseUrl?: string;
	reasoning?: boolean;
	thinkingLevelMap?: ThinkingLevelMap;
	input?: ("text" | "image")[];
	contextWindow?: number;
	maxTokens?: number;
	cost?: Partial<ModelCost>;
	headers?: Record<string, string>;
	compat?: ModelCompat;
}

/** One provider block of models.json. */
export interface ProviderConfig {
	baseUrl?: string;
	api?: Api;
	/** `$VAR`, `${VAR}`, `!command` or a literal. */
	apiKey?: string;
	/** Values resolve like apiKey. */
	headers?: Record<string, string>;
	/** Also send `Authorization: Bearer <key>`. */
	authHeader?: boolean;
	compat?: ModelCompat;
	models?: ModelConfig[];
	modelOverrides?: Record<string, Omit<Partial<ModelConfig>, "id">>;
}

export interface ModelsJson {
	path: string;
	providers: Map<string, ProviderConfig>;
	/** One line per problem, naming the file, the key path and what was expected. The rest still loads. */
	errors: string[];
}

const checkFile = configCheck(ModelsFileSchema);
const checkProvider = configCheck(ProviderSchema);
const checkModel = configCheck(ModelSchema);
const checkOverride = configCheck(ModelOverrideSchema);
const checkModelList = configCheck(ModelListSchema);
const checkOverrides = configCheck(ModelOverridesSchema);

/**
 * Loads the validator ahead when the file exists (see preloadConfigValidator); without the file it
 * loads nothing. A valid file is accepted without it either way.
 */
export function preloadModelsJsonValidator(path: string): Promise<void> {
	return existsSync(path) ? preloadConfigValidator() : Promise.resolve();
}

/** The keys a provider must set at least one of to mean anything. */
const MEANINGFUL = ["baseUrl", "headers", "compat", "modelOverrides", "models", "apiKey", "authHeader"] as const;

/**
 * Reads `<agentDir>/models.json` and checks it against its TypeBox schema (models-json-schema.ts).
 * A missing file is an empty result, not an error, and loads no validator. A bad provider is
 * skipped, a bad model or override only itself; each problem names the file, the key path and
 * what was expected.
 */
export function readModelsJson(path: string): ModelsJson {
	const result: ModelsJson = { path, providers: new Map(), errors: [] };
	let text: string | undefined;
	try {
		// Only a regular file is read: a FIFO named models.json must not hold up the start.
		text = readOptionalTextFileSync(path, { maxBytes: MAX_CONFIG_FILE_BYTES });
	} catch (error) {
		result.errors.push(`${path}: cannot read (${error instanceof Error ? error.message : String(error)})`);
		return result;
	}
	if (text === undefined) return result;
	let data: unknown;
	try {
		data = JSON.parse(text);
	} catch (error) {
		result.errors.push(`${path}: not valid JSON (${jsonProblem(error)})`);
		return result;
	}
	const report = (problems: ConfigProblem[]) => {
		for (const problem of problems) {
			result.errors.push(`${path}: ${problem.path || "(the file)"}: expected ${problem.expected}`);
		}
	};
	const file = checkFile(data, "");
	if (!file.ok) {
		report(file.problems);
		return result;
	}
	for (const [providerId, raw] of Object.entries(file.value.providers)) {
		const provider = parseProvider(raw, keyOf("providers", providerId), report);
		if (provider) result.providers.set(providerId, provider);
	}
	return result;
}

/** The parser's reason without the excerpt of the file V8 quotes: the file may hold a literal key. */
function jsonProblem(error: unknown): string {
	const message = error instanceof Error ? error.message : String(error);
	return message.replace(/(?:, )?(?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s, "") || "syntax error";
}

type Report = (problems: ConfigProblem[]) => void;

function parseProvider(raw: unknown, at: string, report: Report): ProviderConfig | undefined {
	const checked = checkProvider(raw, at);
	if (!checked.ok) {
		report(checked.problems);
		return undefined;
	}
	const entry = checked.value;
	if (!MEANINGFUL.some((key) => entry[key] !== undefined)) {
		report([{ path: at, expected: `at least one of ${MEANINGFUL.join(", ")} (it sets nothing)` }]);
		return undefined;
	}
	const provider: ProviderConfig = {};
	if (entry.baseUrl !== undefined) provider.baseUrl = entry.baseUrl.trim();
	if (entry.api !== undefined) provider.api = entry.api;
	if (entry.apiKey !== undefined) provider.apiKey = entry.apiKey;
	if (entry.authHeader !== undefined) provider.authHeader = entry.authHeader;
	if (entry.headers !== undefined) provider.headers = { ...entry.headers };
	if (entry.compat !== undefined) provider.compat = compatOf(entry.compat);
	const models = entry.models === undefined ? undefined : checkModelList(entry.models, `${at}.models`);
	if (models && !models.ok) report(models.problems);
	else if (models) {
		provider.models = models.value.flatMap((model, index) => {
			const checkedModel = checkModel(model, `${at}.models[${index}]`);
			if (checkedModel.ok) return [{ ...modelOf(checkedModel.value), id: checkedModel.value.id.trim() }];
			report(checkedModel.problems);
			return [];
		});
	}
	const overrides =
		entry.modelOverrides === undefined ? undefined : checkOverrides(entry.modelOverrides, `${at}.modelOverrides`);
	if (overrides && !overrides.ok) report(overrides.problems);
	else if (overrides) {
		provider.modelOverrides = {};
		for (const [id, override] of Object.entries(overrides.value)) {
			const checkedOverride = checkOverride(override, keyOf(`${at}.modelOverrides`, id));
			if (checkedOverride.ok) provider.modelOverrides[id] = modelOf(checkedOverride.value);
			else report(checkedOverride.problems);
		}
	}
	return provider;
}

/** The model fields of a checked model or override, with counts made whole. */
function modelOf(entry: ModelEntry | ModelOverrideEntry): Omit<ModelConfig, "id"> {
	const model: Omit<ModelConfig, "id"> = {};
	if (entry.name !== undefined) model.name = entry.name;
	if (entry.api !== undefined) model.api = entry.api;
	if (entry.baseUrl !== undefined) model.baseUrl = entry.baseUrl;
	if (entry.reasoning !== undefined) model.reasoning = entry.reasoning;
	if (entry.thinkingLevelMap !== undefined) model.thinkingLevelMap = { ...entry.thinkingLevelMap };
	if (entry.input !== undefined) model.input = [...entry.input];
	if (entry.contextWindow !== undefined) model.contextWindow = Math.max(1, Math.floor(entry.contextWindow));
	if (entry.maxTokens !== undefined) model.maxTokens = Math.max(1, Math.floor(entry.maxTokens));
	if (entry.cost !== undefined) model.cost = { ...entry.cost };
	if (entry.headers !== undefined) model.headers = { ...entry.headers };
	if (entry.compat !== undefined) model.compat = compatOf(entry.compat);
	return model;
}

/** Known compat keys as checked; unknown keys are kept (other tools' files may carry more). */
function compatOf(checked: CompatConfig): ModelCompat {
	const compat: ModelCompat = { ...checked };
	// The grammar-tools alias always mirrors the canonical claim.
	if (compat.supportsOpenAIGrammarTools !== undefined) compat.supportsGrammarTools = compat.supportsOpenAIGrammarTools;
	else if (compat.supportsGrammarTools !== undefined) compat.supportsOpenAIGrammarTools = compat.supportsGrammarTools;
	return compat;
}

/** `providers.ollama`, or `providers["llama-cpp"]` for a name that is not an identifier. */
function keyOf(at: string, key: string): string {
	return keyPath(at, [key]);
}
