import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listModels } from "../../src/cli/list-models.js";
import { ModelRegistry } from "../../src/llm/model-registry.js";

let dir: string;

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "atomic-test-"));
});

afterEach(() => {
	rmSync(dir, { recursive: true, force: true });
});

const endpoint = { api: "openai-completions", baseUrl: "http://localhost:1/v1" };

function registry(env: NodeJS.ProcessEnv = {}): ModelRegistry {
	const providers = {
		zlocal: {
			...endpoint,
			models: [
				{ id: "zz-tiny", contextWindow: 200_000, maxTokens: 1_000_000 },
				{ id: "zz-wide-model-name", name: "Wide Display", contextWindow: 1_048_576, maxTokens: 999, reasoning: true },
				{ id: "zz-odd", contextWindow: 1500, maxTokens: 2_500_000, input: ["text", "image"] },
			],
		},
		zkeyed: { ...endpoint, apiKey: "$ZKEY", models: [{ id: "zz-k" }] },
		zmissing: { ...endpoint, apiKey: "$NOT_SET", models: [{ id: "zz-m" }] },
	};
	writeFileSync(join(dir, "models.json"), JSON.stringify({ providers }));
	return new ModelRegistry(dir, env);
}

/** Where each cell starts, given the header line's column starts. */
function cellStarts(line: string): number[] {
	const starts: number[] = [];
	for (let index = 0; index < line.length; index++) {
		if (line[index] !== " " && (index === 0 || line.slice(index - 2, index) === "  ")) starts.push(index);
	}
	return starts;
}

describe("listModels", () => {
	it("prints a header and one aligned row per model", () => {
		const table = listModels(registry({ ZKEY: "k" }), "zz-");
		expect(table.split("\n")).toEqual([
			"provider  model               context  max-out  thinking  input       key",
			"zlocal    zz-tiny             200K     1M       no        text        not-required",
			"zlocal    zz-wide-model-name  1M       999      yes       text        not-required",
			"zlocal    zz-odd              1.5K     2.5M     no        text,image  not-required",
			"zkeyed    zz-k                128K     16K      no        text        models.json",
			"zmissing  zz-m                128K     16K      no        text        -",
		]);
	});

	it("starts every row's cells at the same offsets, built-in models included", () => {
		const lines = listModels(registry({ ANTHROPIC_API_KEY: "a" })).split("\n");
		expect(lines.length).toBeGreaterThan(6);
		const header = cellStarts(lines[0] as string);
		expect(header).toHaveLength(7);
		for (const line of lines) {
			expect(cellStarts(line), line).toEqual(header);
			expect(line).toBe(line.trimEnd());
		}
	});

	it("labels the key source: the variable name for the environment, else the source, else -", () => {
		const models = registry({ ANTHROPIC_API_KEY: "a", GOOGLE_API_KEY: "g" });
		models.credentials.setRuntimeKey("zmissing", "runtime");
		models.credentials.saveApiKey("zkeyed", "stored");
		const keyOf = (provider: string) => {
			const line = listModels(models, `${provider}/`).split("\n")[1] ?? "";
			return line.split(/\s+/).at(-1);
		};
		expect(keyOf("anthropic")).toBe("ANTHROPIC_API_KEY");
		expect(keyOf("google")).toBe("GOOGLE_API_KEY");
		expect(keyOf("zlocal")).toBe("not-required");
		expect(keyOf("zkeyed")).toBe("auth.json");
		expect(keyOf("zmissing")).toBe("runtime");
	});

	it("filters on provider/id and display name, ignoring case", () => {
		const models = registry();
		const ids = (search: string) =>
			listModels(models, search)
				.split("\n")
				.slice(1)
				.map((line) => line.split(/\s+/)[1]);
		expect(ids("ZLOCAL/")).toEqual(["zz-tiny", "zz-wide-model-name", "zz-odd"]);
		expect(ids("wide display")).toEqual(["zz-wide-model-name"]);
		expect(ids("zkeyed/zz-k")).toEqual(["zz-k"]);
		expect(ids("no-model-has-this")).toEqual([]);
	});

	it("prints only the header when nothing matches", () => {
		expect(listModels(registry(), "no-model-has-this")).toBe("provider  model  context  max-out  thinking  input  key");
	});
});
