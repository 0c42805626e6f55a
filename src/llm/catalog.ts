import catalogData from "./catalog.json" with { type: "json" };
import type { Api, Model, ModelCompat, ModelCost, ThinkingLevelMap } from "./types.js";

interface CatalogModel {
	id: string;
	name: string;
	api?: string;
	reasoning: boolean;
	input: string[];
	contextWindow: number;
	maxTokens: number;
	cost: ModelCost;
	thinkingLevelMap?: Record<string, string | null>;
	compat?: Record<string, unknown>;
}

interface CatalogProvider {
	api: string;
	baseUrl: string;
	models: CatalogModel[];
}

/** The built-in providers, in catalog order. */
export function builtInProviders(): string[] {
	return Object.keys(catalogData.providers);
}

/** Default api and baseUrl of a built-in provider. */
export function builtInProviderDefaults(provider: string): { api: Api; baseUrl: string } | undefined {
	const entry = (catalogData.providers as Record<string, CatalogProvider>)[provider];
	return entry ? { api: entry.api as Api, baseUrl: entry.baseUrl } : undefined;
}

/** Every model of the built-in catalog (src/llm/catalog.json), as fresh objects. */
export function builtInModels(): Model[] {
	const models: Model[] = [];
	for (const [provider, entry] of Object.entries(catalogData.providers as Record<string, CatalogProvider>)) {
		for (const model of entry.models) {
			const built: Model = {
				id: model.id,
				name: model.name,
				api: (model.api ?? entry.api) as Api,
				provider,
				baseUrl: entry.baseUrl,
				reasoning: model.reasoning,
				input: model.input.filter((kind): kind is "text" | "image" => kind === "text" || kind === "image"),
				contextWindow: model.contextWindow,
				maxTokens: model.maxTokens,
				cost: { ...model.cost },
			};
			if (model.thinkingLevelMap) built.thinkingLevelMap = { ...model.thinkingLevelMap } as ThinkingLevelMap;
			if (model.compat) built.compat = { ...model.compat } as ModelCompat;
			models.push(built);
		}
	}
	return models;
}
