import { existsSync, readFileSync } from "node:fs";
import { type Api, type ModelCompat, type ModelCost, THINKING_LEVELS, type ThinkingLevelMap } from "./types.js";

const APIS_ACCEPTED = ["anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai"];

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
	/** One line per problem, naming the file, the provider and the field. The rest still loads. */
	errors: string[];
}

type Problems = string[];

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Reads and validates `<agentDir>/models.json`. A missing file is an empty result, not an error. */
export function readModelsJson(path: string): ModelsJson {
	const result: ModelsJson = { path, providers: new Map(), errors: [] };
	if (!existsSync(path)) return result;
	let data: unknown;
	try {
		data = JSON.parse(readFileSync(path, "utf8"));
	} catch (error) {
		result.errors.push(`${path}: not valid JSON (${jsonProblem(error)})`);
		return result;
	}
	if (!isRecord(data) || !isRecord(data.providers)) {
		result.errors.push(`${path}: expected an object with a "providers" object`);
		return result;
	}
	for (const [providerId, raw] of Object.entries(data.providers)) {
		const problems: Problems = [];
		const provider = parseProvider(raw, problems);
		const where = `${path}: provider "${providerId}"`;
		for (const problem of problems) result.errors.push(`${where}: ${problem}`);
		if (provider) result.providers.set(providerId, provider);
	}
	return result;
}

/** The parser's reason without the excerpt of the file V8 quotes: the file may hold a literal key. */
function jsonProblem(error: unknown): string {
	const message = error instanceof Error ? error.message : String(error);
	return message.replace(/(?:, )?(?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s, "") || "syntax error";
}

function parseProvider(raw: unknown, problems: Problems): ProviderConfig | undefined {
	if (!isRecord(raw)) {
		problems.push("must be an object");
		return undefined;
	}
	const provider: ProviderConfig = {};
	const fatalBefore = problems.length;
	if (raw.baseUrl !== undefined) {
		if (typeof raw.baseUrl === "string" && raw.baseUrl.trim()) provider.baseUrl = raw.baseUrl.trim();
		else problems.push("baseUrl must be a non-empty string");
	}
	if (raw.api !== undefined) {
		if (typeof raw.api === "string" && APIS_ACCEPTED.includes(raw.api)) provider.api = raw.api as Api;
		else problems.push(`api must be one of ${APIS_ACCEPTED.join(", ")}`);
	}
	if (raw.apiKey !== undefined) {
		if (typeof raw.apiKey === "string") provider.apiKey = raw.apiKey;
		else problems.push("apiKey must be a string");
	}
	if (raw.authHeader !== undefined) {
		if (typeof raw.authHeader === "boolean") provider.authHeader = raw.authHeader;
		else problems.push("authHeader must be true or false");
	}
	const headers = parseHeaders(raw.headers, "headers", problems);
	if (headers) provider.headers = headers;
	const compat = parseCompat(raw.compat, "compat", problems);
	if (compat) provider.compat = compat;
	if (problems.length > fatalBefore) return undefined;

	if (raw.models !== undefined) {
		if (!Array.isArray(raw.models)) problems.push("models must be an array");
		else {
			provider.models = [];
			raw.models.forEach((entry, index) => {
				const model = parseModel(entry, `models[${index}]`, true, problems);
				if (model) provider.models?.push(model as ModelConfig);
			});
		}
	}
	if (raw.modelOverrides !== undefined) {
		if (!isRecord(raw.modelOverrides)) problems.push("modelOverrides must be an object keyed by model id");
		else {
			provider.modelOverrides = {};
			for (const [id, entry] of Object.entries(raw.modelOverrides)) {
				const override = parseModel(entry, `modelOverrides["${id}"]`, false, problems);
				if (override) provider.modelOverrides[id] = override;
			}
		}
	}
	const meaningful = ["baseUrl", "headers", "compat", "modelOverrides", "models", "apiKey", "authHeader"];
	if (!meaningful.some((key) => raw[key] !== undefined)) {
		problems.push(`sets nothing (give at least one of ${meaningful.join(", ")})`);
		return undefined;
	}
	return provider;
}

function parseModel(
	raw: unknown,
	field: string,
	requireId: boolean,
	problems: Problems,
): Partial<ModelConfig> | undefined {
	if (!isRecord(raw)) {
		problems.push(`${field} must be an object`);
		return undefined;
	}
	const before = problems.length;
	const model: Partial<ModelConfig> = {};
	if (requireId) {
		if (typeof raw.id === "string" && raw.id.trim()) model.id = raw.id.trim();
		else problems.push(`${field}.id must be a non-empty string`);
	}
	const label = requireId && typeof raw.id === "string" ? `${field} ("${raw.id}")` : field;
	const optionalString = (key: "name" | "baseUrl") => {
		if (raw[key] === undefined) return;
		if (typeof raw[key] === "string" && raw[key]) model[key] = raw[key];
		else problems.push(`${label}.${key} must be a non-empty string`);
	};
	optionalString("name");
	optionalString("baseUrl");
	if (raw.api !== undefined) {
		if (typeof raw.api === "string" && APIS_ACCEPTED.includes(raw.api)) model.api = raw.api as Api;
		else problems.push(`${label}.api must be one of ${APIS_ACCEPTED.join(", ")}`);
	}
	if (raw.reasoning !== undefined) {
		if (typeof raw.reasoning === "boolean") model.reasoning = raw.reasoning;
		else problems.push(`${label}.reasoning must be true or false`);
	}
	for (const key of ["contextWindow", "maxTokens"] as const) {
		if (raw[key] === undefined) continue;
		const value = raw[key];
		if (typeof value === "number" && Number.isFinite(value) && value > 0) model[key] = Math.floor(value);
		else problems.push(`${label}.${key} must be a positive number`);
	}
	if (raw.input !== undefined) {
		const input = raw.input;
		if (Array.isArray(input) && input.length > 0 && input.every((kind) => kind === "text" || kind === "image")) {
			model.input = input as ("text" | "image")[];
		} else problems.push(`${label}.input must be a non-empty array of "text" and "image"`);
	}
	if (raw.cost !== undefined) {
		if (!isRecord(raw.cost)) problems.push(`${label}.cost must be an object`);
		else {
			const cost: Partial<ModelCost> = {};
			for (const key of ["input", "output", "cacheRead", "cacheWrite"] as const) {
				const value = raw.cost[key];
				if (value === undefined) continue;
				if (typeof value === "number" && Number.isFinite(value) && value >= 0) cost[key] = value;
				else problems.push(`${label}.cost.${key} must be a number >= 0`);
			}
			model.cost = cost;
		}
	}
	if (raw.thinkingLevelMap !== undefined) {
		if (!isRecord(raw.thinkingLevelMap)) problems.push(`${label}.thinkingLevelMap must be an object`);
		else {
			const map: ThinkingLevelMap = {};
			for (const [level, value] of Object.entries(raw.thinkingLevelMap)) {
				if (!(THINKING_LEVELS as readonly string[]).includes(level)) {
					problems.push(`${label}.thinkingLevelMap has an unknown level "${level}"`);
				} else if (value === null || typeof value === "string") {
					map[level as keyof ThinkingLevelMap] = value;
				} else problems.push(`${label}.thinkingLevelMap.${level} must be a string or null`);
			}
			model.thinkingLevelMap = map;
		}
	}
	const headers = parseHeaders(raw.headers, `${label}.headers`, problems);
	if (headers) model.headers = headers;
	const compat = parseCompat(raw.compat, `${label}.compat`, problems);
	if (compat) model.compat = compat;
	return problems.length > before ? undefined : model;
}

function parseHeaders(raw: unknown, field: string, problems: Problems): Record<string, string> | undefined {
	if (raw === undefined) return undefined;
	if (!isRecord(raw) || !Object.values(raw).every((value) => typeof value === "string")) {
		problems.push(`${field} must be an object of string values`);
		return undefined;
	}
	return raw as Record<string, string>;
}

const COMPAT_BOOLEANS = [
	"supportsStore",
	"supportsDeveloperRole",
	"supportsReasoningEffort",
	"supportsUsageInStreaming",
	"requiresToolResultName",
	"requiresThinkingAsText",
	"forceAdaptiveThinking",
	"supportsStrictTools",
	"supportsStrictMode",
	"supportsOpenAIGrammarTools",
	"supportsGrammarTools",
] as const;

/** Validates known compat keys; unknown keys are kept (other tools' files may carry more). */
function parseCompat(raw: unknown, field: string, problems: Problems): ModelCompat | undefined {
	if (raw === undefined) return undefined;
	if (!isRecord(raw)) {
		problems.push(`${field} must be an object`);
		return undefined;
	}
	for (const key of COMPAT_BOOLEANS) {
		if (raw[key] !== undefined && typeof raw[key] !== "boolean") problems.push(`${field}.${key} must be true or false`);
	}
	if (
		raw.maxTokensField !== undefined &&
		raw.maxTokensField !== "max_tokens" &&
		raw.maxTokensField !== "max_completion_tokens"
	) {
		problems.push(`${field}.maxTokensField must be "max_tokens" or "max_completion_tokens"`);
	}
	const compat = { ...raw } as ModelCompat;
	// The grammar-tools alias always mirrors the canonical claim.
	if (compat.supportsOpenAIGrammarTools !== undefined) compat.supportsGrammarTools = compat.supportsOpenAIGrammarTools;
	else if (compat.supportsGrammarTools !== undefined) compat.supportsOpenAIGrammarTools = compat.supportsGrammarTools;
	return compat;
}
