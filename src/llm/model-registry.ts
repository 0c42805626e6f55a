import { join } from "node:path";
import { builtInModels, builtInProviderDefaults, builtInProviders } from "./catalog.js";
import { credentialVariables } from "./credential-variables.js";
import { type AuthStatus, CredentialStore, resolveConfigValue } from "./credentials.js";
import { type ModelConfig, type ProviderConfig, readModelsJson } from "./models-json.js";
import type { Model } from "./types.js";

const CUSTOM_DEFAULTS = {
	reasoning: false,
	input: ["text"] as ("text" | "image")[],
	contextWindow: 128_000,
	maxTokens: 16_384,
};

/** What a request to a model needs besides the model: the key and the resolved headers. */
export interface RequestAuth {
	apiKey: string | undefined;
	headers: Record<string, string>;
}

/**
 * All models Atomic knows: the built-in catalog with models.json applied on top (custom providers,
 * added or replaced models, provider-wide baseUrl/headers/compat, per-model overrides), plus the
 * credentials to reach them. Problems in models.json are collected in `errors`; the rest loads.
 */
export class ModelRegistry {
	readonly errors: string[];
	readonly credentials: CredentialStore;
	private models: Model[] = [];
	private configs = new Map<string, ProviderConfig>();

	constructor(
		readonly agentDir: string,
		private readonly env: NodeJS.ProcessEnv = process.env,
	) {
		this.credentials = new CredentialStore(agentDir, env);
		this.errors = [];
		this.reload();
	}

	get modelsJsonPath(): string {
		return join(this.agentDir, "models.json");
	}

	/** Re-reads models.json (auth.json is read on demand). */
	reload(): void {
		const file = readModelsJson(this.modelsJsonPath);
		this.errors.length = 0;
		this.errors.push(...file.errors);
		this.configs = file.providers;
		this.models = composeModels(builtInModels(), file.providers, this.errors, this.modelsJsonPath);
	}

	/** Every model, built-in first (catalog order), then custom providers in file order. */
	all(): Model[] {
		return this.models;
	}

	find(provider: string, id: string): Model | undefined {
		return this.models.find((model) => model.provider === provider && model.id === id);
	}

	providers(): string[] {
		return [...new Set(this.models.map((model) => model.provider))];
	}

	/** True for built-in providers and providers declared in models.json. */
	isKnownProvider(provider: string): boolean {
		return builtInProviders().includes(provider) || this.configs.has(provider);
	}

	authStatus(provider: string): AuthStatus {
		return this.credentials.status(provider, this.authConfig(provider));
	}

	hasCredentials(provider: string): boolean {
		return this.authStatus(provider).configured;
	}

	/** Models whose provider has credentials configured, in registry order. */
	available(): Model[] {
		const configured = new Map<string, boolean>();
		return this.models.filter((model) => {
			let ok = configured.get(model.provider);
			if (ok === undefined) {
				ok = this.hasCredentials(model.provider);
				configured.set(model.provider, ok);
			}
			return ok;
		});
	}

	/** Resolves the key and headers for a request; throws a message naming what to set. */
	requestAuth(model: Model): RequestAuth {
		const config = this.configs.get(model.provider);
		const apiKey = this.credentials.resolve(model.provider, this.authConfig(model.provider));
		const headers: Record<string, string> = {};
		for (const [name, value] of Object.entries(model.headers ?? {})) {
			const resolved = resolveConfigValue(value, this.env, `header "${name}" of provider "${model.provider}"`);
			if (resolved !== undefined) headers[name] = resolved;
		}
		if (config?.authHeader && apiKey) headers.Authorization = `Bearer ${apiKey}`;
		return { apiKey, headers };
	}

	/**
	 * The environment variables this registry reads credentials from (see credentialVariables).
	 * An unreadable auth.json adds none (the error comes with the first request that needs it).
	 */
	credentialVariables(): Set<string> {
		let stored: string[] = [];
		try {
			stored = this.credentials.storedKeys();
		} catch (error) {
			if (!(error instanceof Error)) throw error;
			stored = [];
		}
		return credentialVariables(this.configs, stored);
	}

	private authConfig(provider: string): { apiKey?: string; custom?: boolean } {
		const config = this.configs.get(provider);
		return { apiKey: config?.apiKey, custom: !builtInProviders().includes(provider) && config !== undefined };
	}
}

function composeModels(base: Model[], configs: Map<string, ProviderConfig>, errors: string[], path: string): Model[] {
	const models = [...base];
	for (const [provider, config] of configs) {
		const builtIn = builtInProviderDefaults(provider);
		// Provider-wide settings apply to the provider's built-in models (proxy routing).
		for (let index = 0; index < models.length; index++) {
			const model = models[index] as Model;
			if (model.provider !== provider) continue;
			models[index] = applyProviderConfig(model, config);
		}
		for (const entry of config.models ?? []) {
			const api = entry.api ?? config.api ?? builtIn?.api;
			const baseUrl = entry.baseUrl ?? config.baseUrl ?? builtIn?.baseUrl;
			const where = `${path}: provider "${provider}": model "${entry.id}"`;
			if (!api) {
				errors.push(`${where}: api is required (set it on the model or the provider)`);
				continue;
			}
			if (!baseUrl) {
				errors.push(`${where}: baseUrl is required when defining custom models`);
				continue;
			}
			const model = buildCustomModel(provider, entry, api, baseUrl, config);
			const existing = models.findIndex((candidate) => candidate.provider === provider && candidate.id === entry.id);
			if (existing >= 0) models[existing] = model;
			else models.push(model);
		}
		for (const [id, override] of Object.entries(config.modelOverrides ?? {})) {
			const index = models.findIndex((candidate) => candidate.provider === provider && candidate.id === id);
			if (index < 0) {
				errors.push(`${path}: provider "${provider}": modelOverrides["${id}"]: no such model`);
				continue;
			}
			models[index] = applyOverride(models[index] as Model, override);
		}
	}
	return models;
}

function applyProviderConfig(model: Model, config: ProviderConfig): Model {
	const next: Model = { ...model };
	if (config.baseUrl) next.baseUrl = config.baseUrl;
	if (config.headers) next.headers = { ...model.headers, ...config.headers };
	if (config.compat) next.compat = { ...model.compat, ...config.compat };
	return next;
}

function buildCustomModel(
	provider: string,
	entry: ModelConfig,
	api: Model["api"],
	baseUrl: string,
	config: ProviderConfig,
): Model {
	const model: Model = {
		id: entry.id,
		name: entry.name ?? entry.id,
		api,
		provider,
		baseUrl,
		reasoning: entry.reasoning ?? CUSTOM_DEFAULTS.reasoning,
		input: entry.input ?? CUSTOM_DEFAULTS.input,
		contextWindow: entry.contextWindow ?? CUSTOM_DEFAULTS.contextWindow,
		maxTokens: entry.maxTokens ?? CUSTOM_DEFAULTS.maxTokens,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, ...entry.cost },
	};
	if (entry.thinkingLevelMap) model.thinkingLevelMap = entry.thinkingLevelMap;
	const headers = { ...config.headers, ...entry.headers };
	if (Object.keys(headers).length > 0) model.headers = headers;
	const compat = { ...config.compat, ...entry.compat };
	if (Object.keys(compat).length > 0) model.compat = compat;
	return model;
}

function applyOverride(model: Model, override: Omit<Partial<ModelConfig>, "id">): Model {
	const next: Model = { ...model };
	if (override.name !== undefined) next.name = override.name;
	if (override.api !== undefined) next.api = override.api;
	if (override.baseUrl !== undefined) next.baseUrl = override.baseUrl;
	if (override.reasoning !== undefined) next.reasoning = override.reasoning;
	if (override.input !== undefined) next.input = override.input;
	if (override.contextWindow !== undefined) next.contextWindow = override.contextWindow;
	if (override.maxTokens !== undefined) next.maxTokens = override.maxTokens;
	if (override.cost !== undefined) next.cost = { ...model.cost, ...override.cost };
	if (override.thinkingLevelMap !== undefined)
		next.thinkingLevelMap = { ...model.thinkingLevelMap, ...override.thinkingLevelMap };
	if (override.headers !== undefined) next.headers = { ...model.headers, ...override.headers };
	if (override.compat !== undefined) next.compat = { ...model.compat, ...override.compat };
	return next;
}
