import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CredentialStore, resolveConfigValue } from "../../src/llm/credentials.js";

let dir: string;
let authPath: string;

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "atomic-test-"));
	authPath = join(dir, "auth.json");
});

afterEach(() => {
	rmSync(dir, { recursive: true, force: true });
});

const baseEnv = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH });

function store(env: NodeJS.ProcessEnv = {}, agentDir = dir): CredentialStore {
	return new CredentialStore(agentDir, { ...baseEnv(), ...env });
}

/** Every message of an error and its causes, plus its inspected form. */
function everythingSaidBy(run: () => unknown): string {
	try {
		run();
	} catch (error) {
		return inspect(error, { depth: 10 });
	}
	throw new Error("expected a throw");
}

describe("CredentialStore: resolution order", () => {
	it("prefers runtime, then auth.json, then models.json apiKey, then the environment", () => {
		const credentials = store({ ANTHROPIC_API_KEY: "env-key", CONFIG_KEY: "models-key" });
		const config = { apiKey: "$CONFIG_KEY" };
		credentials.setRuntimeKey("anthropic", "runtime-key");
		credentials.saveApiKey("anthropic", "stored-key");
		expect(credentials.resolve("anthropic", config)).toBe("runtime-key");
		expect(credentials.status("anthropic", config)).toEqual({ configured: true, source: "runtime" });

		expect(credentials.remove("anthropic")).toBe(true);
		expect(credentials.resolve("anthropic", config)).toBe("models-key");
		expect(credentials.status("anthropic", config)).toEqual({ configured: true, source: "models.json" });

		credentials.saveApiKey("anthropic", "stored-key");
		expect(credentials.resolve("anthropic", config)).toBe("stored-key");
		expect(credentials.status("anthropic", config)).toEqual({ configured: true, source: "auth.json", label: authPath });

		credentials.remove("anthropic");
		expect(credentials.resolve("anthropic")).toBe("env-key");
		expect(credentials.status("anthropic")).toEqual({
			configured: true,
			source: "environment",
			label: "ANTHROPIC_API_KEY",
		});
	});

	it("reads the provider's variables in order of preference and labels the one used", () => {
		expect(store({ GOOGLE_API_KEY: "g2" }).resolve("google")).toBe("g2");
		expect(store({ GOOGLE_API_KEY: "g2", GEMINI_API_KEY: "g1" }).resolve("google")).toBe("g1");
		expect(store({ GOOGLE_API_KEY: "g2" }).status("google")).toEqual({
			configured: true,
			source: "environment",
			label: "GOOGLE_API_KEY",
		});
	});

	it("ignores blank environment values and trims the rest", () => {
		expect(store({ OPENAI_API_KEY: "   " }).status("openai")).toEqual({ configured: false });
		expect(() => store({ OPENAI_API_KEY: "   " }).resolve("openai")).toThrow(/OPENAI_API_KEY/);
		expect(store({ OPENAI_API_KEY: "  sk-x \n" }).resolve("openai")).toBe("sk-x");
	});

	it("reads an auth.json written by someone else", () => {
		writeFileSync(authPath, JSON.stringify({ openai: { type: "api_key", key: "from-file" }, junk: 3 }));
		const credentials = store();
		expect(credentials.resolve("openai")).toBe("from-file");
		expect(credentials.status("junk")).toEqual({ configured: false });
		expect(credentials.problems()).toEqual([
			`${authPath}: junk: expected an object like {"type": "api_key", "key": "..."}; the entry is ignored`,
		]);
	});
});

describe("config values", () => {
	const env = { TEAM: "core", EMPTY: "" };

	it.each([
		["$TEAM", "core"],
		[`\${TEAM}`, "core"],
		[`prefix-\${TEAM}-suffix`, "prefix-core-suffix"],
		["a$TEAM.b", "acore.b"],
		["cost$$5", "cost$5"],
		["$$TEAM", "$TEAM"],
		["$!literal", "!literal"],
		["plain-literal", "plain-literal"],
		["  padded  ", "padded"],
	])("resolves %s to %s", (value, expected) => {
		expect(resolveConfigValue(value, env, "test value")).toBe(expected);
	});

	it.each([["$UNSET"], [`\${UNSET}`], ["$EMPTY"], ["   "]])("resolves %s to nothing", (value) => {
		expect(resolveConfigValue(value, env, "test value")).toBeUndefined();
	});

	it("runs !command through the shell with the given environment and trims its output", () => {
		expect(resolveConfigValue("!printf secret", baseEnv(), "x")).toBe("secret");
		expect(resolveConfigValue('!printf "%s\\n" "$TEAM"', { ...baseEnv(), TEAM: "core" }, "x")).toBe("core");
		expect(resolveConfigValue("!true", baseEnv(), "x")).toBeUndefined();
	});

	it("reports a failing command without its output", () => {
		// The outputs are assembled by printf so that the command text itself does not contain them.
		const command = "!printf 'sk-%s' stdout; printf 'sk-%s' stderr >&2; exit 3";
		const run = () => resolveConfigValue(command, baseEnv(), 'apiKey of provider "p"');
		expect(run).toThrow('The command that provides apiKey of provider "p" failed (exit code 3)');
		const said = everythingSaidBy(run);
		expect(said).not.toContain("sk-stdout");
		expect(said).not.toContain("sk-stderr");
	});

	it("says how a command ended when a signal killed it", () => {
		expect(() => resolveConfigValue("!kill -KILL $$", baseEnv(), "the key")).toThrow(
			"The command that provides the key failed (killed by SIGKILL)",
		);
	});

	it("runs a stored !command and a models.json !command through resolve()", () => {
		const credentials = store();
		expect(credentials.resolve("custom", { apiKey: "!printf from-models", custom: true })).toBe("from-models");
		credentials.saveApiKey("custom", "!printf from-auth");
		expect(credentials.resolve("custom", { apiKey: "!printf from-models", custom: true })).toBe("from-auth");
	});

	it("reports a status for a !command without running it", () => {
		const marker = join(dir, "ran");
		const credentials = store();
		expect(credentials.status("custom", { apiKey: `!touch ${marker}`, custom: true })).toEqual({
			configured: true,
			source: "models.json",
		});
		expect(readdirSync(dir)).not.toContain("ran");
	});
});

describe("CredentialStore: auth.json", () => {
	it("writes auth.json with mode 0600, keeping other providers", () => {
		const credentials = store();
		credentials.saveApiKey("anthropic", "a-key");
		credentials.saveApiKey("openai", "o-key");
		expect(statSync(authPath).mode & 0o777).toBe(0o600);
		expect(JSON.parse(readFileSync(authPath, "utf8"))).toEqual({
			anthropic: { type: "api_key", key: "a-key" },
			openai: { type: "api_key", key: "o-key" },
		});
	});

	it("tightens an existing file to 0600 and replaces it atomically (new inode, no temp file left)", () => {
		writeFileSync(authPath, JSON.stringify({ old: { type: "api_key", key: "k" } }), { mode: 0o644 });
		const before = statSync(authPath).ino;
		store().saveApiKey("anthropic", "a-key");
		expect(statSync(authPath).mode & 0o777).toBe(0o600);
		expect(statSync(authPath).ino).not.toBe(before);
		expect(readdirSync(dir)).toEqual(["auth.json"]);
		expect(Object.keys(JSON.parse(readFileSync(authPath, "utf8")))).toEqual(["old", "anthropic"]);
	});

	it("creates a missing agent directory with mode 0700", () => {
		const nested = join(dir, "deep", "agent");
		store({}, nested).saveApiKey("anthropic", "k");
		expect(statSync(nested).mode & 0o777).toBe(0o700);
		expect(statSync(join(nested, "auth.json")).mode & 0o777).toBe(0o600);
	});

	it("remove() logs out: deletes the stored key and the runtime key", () => {
		const credentials = store();
		credentials.saveApiKey("anthropic", "a-key");
		credentials.saveApiKey("openai", "o-key");
		expect(credentials.remove("anthropic")).toBe(true);
		expect(JSON.parse(readFileSync(authPath, "utf8"))).toEqual({ openai: { type: "api_key", key: "o-key" } });
		expect(store().status("anthropic")).toEqual({ configured: false });
		expect(credentials.remove("anthropic")).toBe(false);

		credentials.setRuntimeKey("google", "runtime");
		expect(credentials.remove("google")).toBe(true);
		expect(credentials.status("google")).toEqual({ configured: false });
		expect(statSync(authPath).mode & 0o777).toBe(0o600);
	});

	it("checks each entry against the schema: a bad one is reported by file and key, never by value, and ignored", () => {
		writeFileSync(
			authPath,
			JSON.stringify({
				anthropic: { type: "api_key", key: "sk-ant-good" },
				openai: { type: "oauth", refresh: "sk-oauth-secret" },
				google: { key: 12345 },
				groq: "gsk-bare-string",
			}),
		);
		const credentials = store();
		expect(credentials.problems()).toEqual([
			`${authPath}: openai.key: expected a string (the key); openai.type: expected "api_key" (the only kind of credential Atomic stores); the entry is ignored`,
			`${authPath}: google.key: expected a string (the key); the entry is ignored`,
			`${authPath}: groq: expected an object like {"type": "api_key", "key": "..."}; the entry is ignored`,
		]);
		expect(credentials.problems().join("\n")).not.toMatch(/sk-oauth|12345|gsk-bare/);
		expect(credentials.resolve("anthropic")).toBe("sk-ant-good");
		expect(credentials.status("openai")).toEqual({ configured: false });
		// With nothing else to fall back on, the error says what is wrong with the entry.
		expect(() => credentials.resolve("google")).toThrow(
			`${authPath}: google.key: expected a string (the key); the entry is ignored`,
		);
		// Another source still works.
		expect(store({ OPENAI_API_KEY: "sk-env" }).resolve("openai")).toBe("sk-env");
	});

	it("reports a file that is not an object and ignores it", () => {
		writeFileSync(authPath, JSON.stringify(["sk-in-array"]));
		const credentials = store();
		expect(credentials.problems()).toEqual([
			`${authPath}: (the file): expected an object of providers; the file is ignored`,
		]);
		expect(credentials.status("anthropic")).toEqual({ configured: false });
	});

	it("has no problems without a file or with a good one", () => {
		expect(store().problems()).toEqual([]);
		writeFileSync(authPath, JSON.stringify({ openai: { key: "k" } }));
		expect(store().problems()).toEqual([]);
	});

	it("reports an unreadable auth.json by path without quoting it", () => {
		writeFileSync(authPath, '{"anthropic": {"key": sk-ant-secret}}');
		const credentials = store();
		expect(() => credentials.resolve("anthropic")).toThrow(`${authPath} is not valid JSON`);
		try {
			credentials.resolve("anthropic");
		} catch (error) {
			expect(error instanceof Error ? error.message : "").not.toContain("sk-ant");
		}
	});
});

describe("CredentialStore: missing keys", () => {
	it("needs no key for a custom provider declared without apiKey", () => {
		const credentials = store();
		expect(credentials.resolve("ollama", { custom: true })).toBeUndefined();
		expect(credentials.status("ollama", { custom: true })).toEqual({ configured: true, source: "not-required" });
	});

	it("still uses a key that is available for a keyless custom provider", () => {
		const credentials = store();
		credentials.setRuntimeKey("ollama", "given");
		expect(credentials.resolve("ollama", { custom: true })).toBe("given");
	});

	it("names the variables and auth.json, and never any key, when a built-in provider has none", () => {
		const credentials = store({ ANTHROPIC_API_KEY: "sk-ant-env-secret", OPENAI_API_KEY: "" });
		credentials.saveApiKey("openai-other", "sk-stored-secret");
		credentials.setRuntimeKey("anthropic", "sk-runtime-secret");
		const message = `No API key found for google. Set GEMINI_API_KEY or GOOGLE_API_KEY, or store a key in ${authPath}.`;
		expect(() => credentials.resolve("google")).toThrow(message);
		expect(store().status("google")).toEqual({ configured: false });
		const said = everythingSaidBy(() => credentials.resolve("google"));
		for (const secret of ["sk-ant-env-secret", "sk-stored-secret", "sk-runtime-secret"])
			expect(said).not.toContain(secret);
	});

	it("asks for an apiKey in models.json for an unknown provider", () => {
		expect(() => store().resolve("mystery")).toThrow(
			`No API key found for mystery. Set "apiKey" for it in models.json, or store a key in ${authPath}.`,
		);
	});

	it("explains an apiKey that resolved to nothing without showing it", () => {
		const credentials = store();
		const config = { apiKey: "$NOT_SET_ANYWHERE", custom: true };
		expect(credentials.status("custom", config)).toEqual({ configured: false });
		expect(() => credentials.resolve("custom", config)).toThrow(
			"No API key found for custom: the apiKey configured in models.json resolved to nothing (is its variable set?).",
		);
	});
});
