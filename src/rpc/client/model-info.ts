import type { ModelCapabilityClaims, ModelInfo, RpcModel } from "./results.js";

const CLAIMS = ["supportsStrictTools", "supportsStrictMode"] as const;

/**
 * The small ModelInfo of a full model: provider, id, contextWindow, reasoning, and `compat` with
 * the constrained-sampling claims its configuration makes (only those it makes; never inferred
 * from the provider). The grammar-tools claim is reported under both names, always equal.
 */
export function toModelInfo(model: RpcModel): ModelInfo {
	const info: ModelInfo = {
		provider: model.provider,
		id: model.id,
		contextWindow: model.contextWindow,
		reasoning: model.reasoning,
	};
	const compat = model.compat;
	if (!compat) return info;
	const claims: ModelCapabilityClaims = {};
	for (const claim of CLAIMS) {
		const value = compat[claim];
		if (typeof value === "boolean") claims[claim] = value;
	}
	const grammar = compat.supportsOpenAIGrammarTools ?? compat.supportsGrammarTools;
	if (typeof grammar === "boolean") {
		claims.supportsOpenAIGrammarTools = grammar;
		claims.supportsGrammarTools = grammar;
	}
	if (Object.keys(claims).length > 0) info.compat = claims;
	return info;
}
