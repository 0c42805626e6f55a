import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SettingsStore } from "../../src/resources/settings.js";

let root: string;
let agentDir: string;
let cwd: string;
let globalPath: string;
let projectPath: string;

beforeEach(() => {
	root = mkdtempSync(join(tmpdir(), "atomic-test-"));
	agentDir = join(root, "agent");
	cwd = join(root, "project");
	globalPath = join(agentDir, "settings.json");
	projectPath = join(cwd, ".atomic", "settings.json");
	mkdirSync(agentDir, { recursive: true });
	mkdirSync(join(cwd, ".atomic"), { recursive: true });
});

afterEach(() => {
	rmSync(root, { recursive: true, force: true });
});

const writeJson = (path: string, value: unknown) => writeFileSync(path, JSON.stringify(value));
const readJson = (path: string): unknown => JSON.parse(readFileSync(path, "utf8"));

describe("SettingsStore: loading", () => {
	it("is empty without files", () => {
		rmSync(root, { recursive: true, force: true });
		const store = new SettingsStore(agentDir, cwd);
		expect(store.get()).toEqual({});
		expect(store.errors).toEqual([]);
		expect(store.globalPath).toBe(globalPath);
		expect(store.projectPath).toBe(projectPath);
	});

	it("lets the project override the global file key by key, merging nested objects", () => {
		writeJson(globalPath, {
			defaultProvider: "anthropic",
			defaultModel: "global-model",
			retry: { enabled: true, maxRetries: 3 },
			compaction: { enabled: true, reserveTokens: 1000 },
			thinkingBudgets: { low: 100 },
			shellPath: "/bin/bash",
		});
		writeJson(projectPath, {
			defaultModel: "project-model",
			retry: { maxRetries: 7 },
			thinkingBudgets: { high: 900 },
			shellPath: null,
			steeringMode: "one-at-a-time",
		});
		expect(new SettingsStore(agentDir, cwd).get()).toEqual({
			defaultProvider: "anthropic",
			defaultModel: "project-model",
			retry: { enabled: true, maxRetries: 7 },
			compaction: { enabled: true, reserveTokens: 1000 },
			thinkingBudgets: { low: 100, high: 900 },
			shellPath: null,
			steeringMode: "one-at-a-time",
		});
	});

	it("replaces arrays and replaces an object with a scalar (and the reverse) instead of merging", () => {
		writeJson(globalPath, { list: [1, 2], retry: { enabled: true }, mode: "x" });
		writeJson(projectPath, { list: [3], retry: false, mode: { nested: true } });
		expect(new SettingsStore(agentDir, cwd).get()).toEqual({ list: [3], retry: false, mode: { nested: true } });
	});

	it("reports invalid JSON with the file path and ignores that file", () => {
		writeFileSync(globalPath, "{ nope");
		writeJson(projectPath, { defaultModel: "project-model" });
		const store = new SettingsStore(agentDir, cwd);
		expect(store.errors).toHaveLength(1);
		expect(store.errors[0]).toMatch(new RegExp(`^${escapeRegExp(globalPath)}: not valid JSON \\(.+\\)$`));
		expect(store.get()).toEqual({ defaultModel: "project-model" });
	});

	it("reports a file that is not a JSON object", () => {
		writeFileSync(projectPath, "[1, 2]");
		writeFileSync(globalPath, "3");
		const store = new SettingsStore(agentDir, cwd);
		expect(store.errors).toEqual([`${globalPath}: expected a JSON object`, `${projectPath}: expected a JSON object`]);
		expect(store.get()).toEqual({});
	});

	it("returns a fresh copy each time", () => {
		writeJson(globalPath, { defaultModel: "m", retry: { enabled: true } });
		const store = new SettingsStore(agentDir, cwd);
		const first = store.get();
		first.defaultModel = "changed";
		expect(store.get().defaultModel).toBe("m");
		expect(store.get()).not.toBe(store.get());
	});

	it("returns nested objects a caller can change without changing the store", () => {
		writeJson(globalPath, { retry: { enabled: true } });
		const store = new SettingsStore(agentDir, cwd);
		const retry = store.get().retry;
		if (retry) retry.enabled = false;
		expect(store.get().retry).toEqual({ enabled: true });
		store.update({ defaultModel: "m" });
		expect(readJson(globalPath)).toEqual({ retry: { enabled: true }, defaultModel: "m" });
	});
});

describe("SettingsStore: update", () => {
	it("writes the global file only, merged with what it held, and leaves the project file alone", () => {
		writeJson(globalPath, { defaultProvider: "anthropic", retry: { enabled: true, maxRetries: 3 } });
		writeJson(projectPath, { defaultModel: "project-model" });
		const projectBefore = readFileSync(projectPath, "utf8");
		const store = new SettingsStore(agentDir, cwd);
		store.update({ defaultModel: "chosen", retry: { maxRetries: 5 }, defaultThinkingLevel: "high" });
		expect(readJson(globalPath)).toEqual({
			defaultProvider: "anthropic",
			defaultModel: "chosen",
			retry: { enabled: true, maxRetries: 5 },
			defaultThinkingLevel: "high",
		});
		expect(readFileSync(projectPath, "utf8")).toBe(projectBefore);
		// The project still wins in the effective settings.
		expect(store.get()).toMatchObject({ defaultModel: "project-model", defaultThinkingLevel: "high" });
	});

	it("creates the global file and its directory when missing, leaving no temp file", () => {
		rmSync(agentDir, { recursive: true, force: true });
		const store = new SettingsStore(agentDir, cwd);
		store.update({ defaultThinkingLevel: "low" });
		store.update({ autoCompaction: false });
		expect(readJson(globalPath)).toEqual({ defaultThinkingLevel: "low", autoCompaction: false });
		expect(readFileSync(globalPath, "utf8").endsWith("}\n")).toBe(true);
		expect(readdirSync(agentDir)).toEqual(["settings.json"]);
		expect(existsSync(join(cwd, ".atomic", "settings.json"))).toBe(false);
		expect(new SettingsStore(agentDir, cwd).get()).toEqual({ defaultThinkingLevel: "low", autoCompaction: false });
	});
});

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
