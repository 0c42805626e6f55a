import { chmodSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { ensureDirectorySync } from "../platform/ensure-directory.js";
import { MAX_CONFIG_FILE_BYTES, readOptionalTextFileSync } from "../platform/regular-file.js";
import { configCheck, keyPath } from "./config-validator.js";
import { Type } from "./schema-builders.js";

/** Loads node:child_process only for a `!command` secret: most starts never run one. */
const requireBuiltin = createRequire(import.meta.url);

/** Environment variables that hold a provider's API key, in order of preference. */
export const PROVIDER_ENV_VARS: Record<string, string[]> = {
	anthropic: ["ANTHROPIC_API_KEY"],
	openai: ["OPENAI_API_KEY"],
	google: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
	groq: ["GROQ_API_KEY"],
	xai: ["XAI_API_KEY"],
	openrouter: ["OPENROUTER_API_KEY"],
	mistral: ["MISTRAL_API_KEY"],
	deepseek: ["DEEPSEEK_API_KEY"],
	cerebras: ["CEREBRAS_API_KEY"],
	together: ["TOGETHER_API_KEY"],
	fireworks: ["FIREWORKS_API_KEY"],
	huggingface: ["HF_TOKEN"],
	"vercel-ai-gateway": ["AI_GATEWAY_API_KEY"],
	zai: ["ZAI_API_KEY"],
	moonshotai: ["MOONSHOT_API_KEY"],
	minimax: ["MINIMAX_API_KEY"],
	nvidia: ["NVIDIA_API_KEY"],
};

export type CredentialSource = "runtime" | "auth.json" | "models.json" | "environment" | "not-required";

export interface AuthStatus {
	configured: boolean;
	/** Where the credential comes from; absent when none is configured. */
	source?: CredentialSource;
	/** The variable or file that holds it (never the key itself). */
	label?: string;
}

/** What the credential layer needs to know about a provider's models.json block. */
export interface ProviderAuthConfig {
	/** The models.json `apiKey` value (`$VAR`, `${VAR}`, `!command` or a literal). */
	apiKey?: string;
	/** True for providers declared in models.json that are not built in: they may need no key. */
	custom?: boolean;
}

interface StoredCredential {
	type: "api_key";
	key: string;
}

/** One provider's entry in auth.json. Atomic stores API keys only (`type` may be left out). */
const StoredCredentialSchema = Type.Object(
	{
		type: Type.Optional(
			Type.Literal("api_key", { description: '"api_key" (the only kind of credential Atomic stores)' }),
		),
		key: Type.String({ description: "a string (the key)" }),
	},
	{ description: 'an object like {"type": "api_key", "key": "..."}' },
);
const checkCredential = configCheck(StoredCredentialSchema);

/**
 * Resolves API keys in this order: a runtime key, `<agentDir>/auth.json`, the models.json
 * `apiKey`, then the provider's environment variable. Keys are never logged and never put in
 * error messages; errors name the variable or file to set instead.
 */
export class CredentialStore {
	private readonly runtimeKeys = new Map<string, string>();
	private stored: Record<string, StoredCredential> | undefined;
	/** Entries of auth.json that do not match the schema, by provider: what is wrong with each. */
	private readonly invalid = new Map<string, string>();
	readonly authPath: string;

	constructor(
		readonly agentDir: string,
		private readonly env: NodeJS.ProcessEnv = process.env,
	) {
		this.authPath = join(agentDir, "auth.json");
	}

	setRuntimeKey(provider: string, key: string): void {
		this.runtimeKeys.set(provider, key);
	}

	/** Stores a key in auth.json (created with mode 0600). */
	saveApiKey(provider: string, key: string): void {
		const stored = { ...this.readStored(), [provider]: { type: "api_key" as const, key } };
		this.writeStored(stored);
	}

	/** Removes the stored and runtime credential of a provider. Returns true when something was removed. */
	remove(provider: string): boolean {
		const hadRuntime = this.runtimeKeys.delete(provider);
		const stored = this.readStored();
		if (!(provider in stored)) return hadRuntime;
		const { [provider]: _removed, ...rest } = stored;
		this.writeStored(rest);
		return true;
	}

	/** The keys stored in auth.json, as written there (a `$VAR`, a `!command` or the key itself). */
	storedKeys(): string[] {
		return Object.values(this.readStored()).map((credential) => credential.key);
	}

	/** Where a provider's credential would come from, without running any `!command`. */
	status(provider: string, config: ProviderAuthConfig = {}): AuthStatus {
		if (this.runtimeKeys.has(provider)) return { configured: true, source: "runtime" };
		if (this.readStored()[provider]) return { configured: true, source: "auth.json", label: this.authPath };
		if (config.apiKey !== undefined && configValuePresent(config.apiKey, this.env)) {
			return { configured: true, source: "models.json" };
		}
		const variable = (PROVIDER_ENV_VARS[provider] ?? []).find((name) => this.env[name]?.trim());
		if (variable) return { configured: true, source: "environment", label: variable };
		if (config.custom && config.apiKey === undefined) return { configured: true, source: "not-required" };
		return { configured: false };
	}

	/**
	 * The key to send, or undefined for a provider that needs none. Throws an error that says what
	 * to set when a required key is missing, or when a `!command` fails.
	 */
	resolve(provider: string, config: ProviderAuthConfig = {}): string | undefined {
		const runtime = this.runtimeKeys.get(provider);
		if (runtime) return runtime;
		const stored = this.readStored()[provider];
		if (stored) {
			const key = resolveConfigValue(stored.key, this.env, `the key stored for ${provider} in ${this.authPath}`);
			if (key) return key;
		}
		if (config.apiKey !== undefined) {
			const key = resolveConfigValue(config.apiKey, this.env, `apiKey of provider "${provider}" in models.json`);
			if (key) return key;
		}
		for (const name of PROVIDER_ENV_VARS[provider] ?? []) {
			const value = this.env[name]?.trim();
			if (value) return value;
		}
		if (config.custom && config.apiKey === undefined) return undefined;
		const invalid = this.invalid.get(provider);
		throw new Error(invalid ?? missingKeyMessage(provider, config, this.authPath));
	}

	/**
	 * What is wrong with auth.json (entries that are ignored, or a file that is not JSON), one line
	 * each, naming the file and the key; never a value. Empty when it is fine or absent.
	 */
	problems(): string[] {
		try {
			this.readStored();
		} catch (error) {
			return [error instanceof Error ? error.message : String(error)];
		}
		return [...this.invalid.values()];
	}

	private readStored(): Record<string, StoredCredential> {
		if (this.stored) return this.stored;
		const parsed: Record<string, StoredCredential> = {};
		let text: string | undefined;
		try {
			// Only a regular file is read: a FIFO named auth.json must not hold up the process.
			text = readOptionalTextFileSync(this.authPath, { maxBytes: MAX_CONFIG_FILE_BYTES });
		} catch (error) {
			throw new Error(`Cannot read ${this.authPath}: ${error instanceof Error ? error.message : String(error)}`, {
				cause: error,
			});
		}
		if (text !== undefined) {
			let data: unknown;
			try {
				data = JSON.parse(text);
			} catch {
				// The parser's message can quote the file, and so a key: say only where the problem is.
				throw new Error(`${this.authPath} is not valid JSON; fix or remove it`);
			}
			const isObject = typeof data === "object" && data !== null && !Array.isArray(data);
			if (!isObject)
				this.invalid.set("", `${this.authPath}: (the file): expected an object of providers; the file is ignored`);
			const entries = typeof data === "object" && data !== null && isObject ? Object.entries(data) : [];
			for (const [provider, value] of entries) {
				const checked = checkCredential(value, keyPath("", [provider]));
				if (checked.ok) parsed[provider] = { type: "api_key", key: checked.value.key };
				else {
					const problems = checked.problems.map((problem) => `${problem.path}: expected ${problem.expected}`);
					this.invalid.set(provider, `${this.authPath}: ${problems.join("; ")}; the entry is ignored`);
				}
			}
		}
		this.stored = parsed;
		return parsed;
	}

	private writeStored(stored: Record<string, StoredCredential>): void {
		ensureDirectorySync(dirname(this.authPath), { mode: 0o700 });
		const temporary = `${this.authPath}.${process.pid}.tmp`;
		writeFileSync(temporary, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
		chmodSync(temporary, 0o600);
		renameSync(temporary, this.authPath);
		this.stored = stored;
	}
}

function missingKeyMessage(provider: string, config: ProviderAuthConfig, authPath: string): string {
	const variables = PROVIDER_ENV_VARS[provider];
	if (config.apiKey !== undefined) {
		return `No API key found for ${provider}: the apiKey configured in models.json resolved to nothing (is its variable set?).`;
	}
	if (variables?.length)
		return `No API key found for ${provider}. Set ${variables.join(" or ")}, or store a key in ${authPath}.`;
	return `No API key found for ${provider}. Set "apiKey" for it in models.json, or store a key in ${authPath}.`;
}

/** True when a config value would resolve to something (commands are assumed to succeed). */
function configValuePresent(value: string, env: NodeJS.ProcessEnv): boolean {
	if (value.startsWith("!")) return value.length > 1;
	return interpolate(value, env).trim() !== "";
}

/**
 * Resolves a configured secret: `!command` runs the command through the shell and uses its
 * stdout; otherwise `$VAR` and `${VAR}` are replaced from the environment (`$$` is a literal `$`).
 */
export function resolveConfigValue(value: string, env: NodeJS.ProcessEnv, what: string): string | undefined {
	if (value.startsWith("!")) {
		const { execSync } = requireBuiltin("node:child_process") as typeof import("node:child_process");
		try {
			const output = execSync(value.slice(1), {
				encoding: "utf8",
				stdio: ["ignore", "pipe", "pipe"],
				env,
				timeout: 30_000,
			});
			return output.trim() || undefined;
		} catch (error) {
			// Not attached as `cause`: execSync's error carries the command's stdout and stderr, which
			// may hold the secret. Only how the command ended is kept.
			throw new Error(`The command that provides ${what} failed (${commandOutcome(error)})`);
		}
	}
	return interpolate(value, env).trim() || undefined;
}

function commandOutcome(error: unknown): string {
	if (typeof error !== "object" || error === null) return "it did not run";
	if ("code" in error && typeof error.code === "string") return error.code;
	if ("signal" in error && typeof error.signal === "string") return `killed by ${error.signal}`;
	if ("status" in error && typeof error.status === "number") return `exit code ${error.status}`;
	return "it did not run";
}

/** Replaces `$VAR` and `${VAR}` from `env` (unset: empty); `$$` is a literal `$`, `$!` a literal `!`. */
export function interpolate(value: string, env: NodeJS.ProcessEnv): string {
	return value.replace(/\$\$|\$!|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (match, braced, bare) => {
		if (match === "$$") return "$";
		if (match === "$!") return "!";
		return env[(braced ?? bare) as string] ?? "";
	});
}
