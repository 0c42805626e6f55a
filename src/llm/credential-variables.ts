import { PROVIDER_ENV_VARS } from "./credentials.js";
import type { ModelConfig, ProviderConfig } from "./models-json.js";

/** Names that say a variable holds a secret: `*_API_KEY`, `*_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`. */
const SECRET_NAME = /(?:^|_)(?:API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD)$/i;

/** The variables a configured value (`$VAR`, `${VAR}`; `$$` is a literal) reads. Commands read none. */
export function referencedVariables(value: string): string[] {
	if (value.startsWith("!")) return [];
	const names: string[] = [];
	for (const match of value.matchAll(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g)) {
		const name = match[1] ?? match[2];
		if (name) names.push(name);
	}
	return names;
}

export function looksSecret(name: string): boolean {
	return SECRET_NAME.test(name);
}

/**
 * The environment variables Atomic reads credentials from: every provider's key variable
 * (ANTHROPIC_API_KEY, OPENAI_API_KEY, ...), every variable an `apiKey` in models.json or a key in
 * auth.json refers to, and the secret-looking variables (see looksSecret) its headers refer to.
 */
export function credentialVariables(
	providers: ReadonlyMap<string, ProviderConfig>,
	storedKeys: readonly string[],
): Set<string> {
	const names = new Set(Object.values(PROVIDER_ENV_VARS).flat());
	const addSecretHeaders = (headers: Record<string, string> | undefined) => {
		for (const value of Object.values(headers ?? {})) {
			for (const name of referencedVariables(value)) if (looksSecret(name)) names.add(name);
		}
	};
	for (const config of providers.values()) {
		for (const name of referencedVariables(config.apiKey ?? "")) names.add(name);
		addSecretHeaders(config.headers);
		const models: Partial<ModelConfig>[] = [...(config.models ?? []), ...Object.values(config.modelOverrides ?? {})];
		for (const model of models) addSecretHeaders(model.headers);
	}
	for (const key of storedKeys) for (const name of referencedVariables(key)) names.add(name);
	return names;
}
