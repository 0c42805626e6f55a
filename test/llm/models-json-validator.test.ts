import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

const run = promisify(execFile);
const CLI = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));

let dir: string;

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "atomic-models-json-"));
	vi.resetModules();
});

afterEach(() => {
	rmSync(dir, { recursive: true, force: true });
});

/** Fresh copies of the modules, so that what one test loaded says nothing about the next. */
async function freshModules() {
	const [validator, modelsJson] = await Promise.all([
		import("../../src/llm/config-validator.js"),
		import("../../src/llm/models-json.js"),
	]);
	return { ...validator, ...modelsJson };
}

describe("the models.json validator", () => {
	it("is not loaded when there is no models.json", async () => {
		const modules = await freshModules();
		const path = join(dir, "models.json");
		await modules.preloadModelsJsonValidator(path);
		expect(modules.readModelsJson(path).errors).toEqual([]);
		expect(modules.configValidatorLoaded()).toBe(false);
	});

	it("is loaded ahead by the preload when the file exists", async () => {
		const modules = await freshModules();
		const path = join(dir, "models.json");
		writeFileSync(
			path,
			JSON.stringify({ providers: { local: { baseUrl: "http://x/v1", api: "openai-completions" } } }),
		);
		await modules.preloadModelsJsonValidator(path);
		expect(modules.configValidatorLoaded()).toBe(true);
		expect(modules.readModelsJson(path).errors).toEqual([]);
	});

	it("is not loaded for a valid file, which the quick check accepts", async () => {
		const modules = await freshModules();
		const path = join(dir, "models.json");
		const model = { id: "m", name: "M", reasoning: false, input: ["text"], contextWindow: 1000, maxTokens: 100 };
		writeFileSync(
			path,
			JSON.stringify({
				providers: {
					local: { baseUrl: "http://x/v1", api: "openai-completions", apiKey: "k", models: [model] },
					anthropic: { modelOverrides: { "claude-x": { contextWindow: 5000 } } },
				},
			}),
		);
		const result = modules.readModelsJson(path);
		expect(result.errors).toEqual([]);
		expect([...result.providers.keys()].sort()).toEqual(["anthropic", "local"]);
		expect(modules.configValidatorLoaded()).toBe(false);
	});

	it("is loaded on first use by a caller that did not preload", async () => {
		const modules = await freshModules();
		const path = join(dir, "models.json");
		writeFileSync(path, JSON.stringify({ providers: { local: { apiKey: 5 } } }));
		expect(modules.readModelsJson(path).errors).toEqual([
			`${path}: providers.local.apiKey: expected a string ("$VAR", "!command" or the key)`,
		]);
		expect(modules.configValidatorLoaded()).toBe(true);
	});

	it("reports each bad value from the built CLI, naming the file, the key path and what was expected", async () => {
		const path = join(dir, "models.json");
		const file = {
			providers: {
				ollama: {
					baseUrl: "http://127.0.0.1:11434/v1",
					api: "openai-completions",
					compat: { sendReasoning: "tool-loop" },
					models: [{ id: "qwen3:8b", contextWindow: "32k" }, { id: "llama3.1:8b" }],
				},
				"llama-cpp": { baseUrl: "http://127.0.0.1:8080/v1", api: "openai-completion" },
			},
		};
		writeFileSync(path, JSON.stringify(file));
		const { stdout, stderr } = await run(process.execPath, [CLI, "--list-models", "8b"], {
			env: { ...process.env, ATOMIC_CODING_AGENT_DIR: dir },
		});
		expect(stderr.trim().split("\n")).toEqual([
			`Warning: ${path}: providers.ollama.models[0].contextWindow: expected a number > 0`,
			`Warning: ${path}: providers["llama-cpp"].api: expected one of "anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai"`,
		]);
		expect(stdout).toContain("llama3.1:8b");
		expect(stdout).not.toContain("qwen3:8b");
	});
});
