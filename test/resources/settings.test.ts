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
			shellPath: "/bin/zsh",
			steeringMode: "one-at-a-time",
		});
		expect(new SettingsStore(agentDir, cwd).get()).toEqual({
			defaultProvider: "anthropic",
			defaultModel: "project-model",
			retry: { enabled: true, maxRetries: 7 },
			compaction: { enabled: true, reserveTokens: 1000 },
			thinkingBudgets: { low: 100, high: 900 },
			shellPath: "/bin/zsh",
			steeringMode: "one-at-a-time",
		});
	});

	it("replaces arrays and replaces an object with a scalar (and the reverse) instead of merging", () => {
		writeJson(globalPath, { list: [1, 2], other: { enabled: true }, mode: "x" });
		writeJson(projectPath, { list: [3], other: false, mode: { nested: true } });
		expect(new SettingsStore(agentDir, cwd).get()).toEqual({ list: [3], other: false, mode: { nested: true } });
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

describe("SettingsStore: validation", () => {
	it("drops each value of the wrong kind with an error naming the file, the key and what was expected", () => {
		writeJson(globalPath, {
			defaultModel: "m",
			retry: { enabled: true, maxRetries: "3" },
			steeringMode: "sometimes",
			compaction: { compression_ratio: 2, reserveTokens: 100 },
			thinkingBudgets: { low: -1, high: 50 },
			shellPath: null,
			myExtensionKey: { anything: [1, "two"] },
		});
		writeJson(projectPath, { streamIdleTimeoutMs: "soon", autoCompaction: false });
		const store = new SettingsStore(agentDir, cwd);
		expect(store.errors).toEqual([
			`${globalPath}: retry.maxRetries: expected an integer >= 0; the value is ignored`,
			`${globalPath}: steeringMode: expected one of "all", "one-at-a-time"; the value is ignored`,
			`${globalPath}: compaction.compression_ratio: expected a number between 0 and 1 (exclusive); the value is ignored`,
			`${globalPath}: thinkingBudgets.low: expected an integer >= 0; the value is ignored`,
			`${globalPath}: shellPath: expected a string; the value is ignored`,
			`${projectPath}: streamIdleTimeoutMs: expected a number of milliseconds >= 0; the value is ignored`,
		]);
		expect(store.permissionErrors).toEqual([]);
		expect(store.get()).toEqual({
			defaultModel: "m",
			retry: { enabled: true },
			compaction: { reserveTokens: 100 },
			thinkingBudgets: { high: 50 },
			myExtensionKey: { anything: [1, "two"] },
			autoCompaction: false,
		});
	});

	it("keeps what it dropped in the file when it writes a change", () => {
		writeJson(globalPath, { retry: { maxRetries: "3" }, defaultModel: "m" });
		const store = new SettingsStore(agentDir, cwd);
		store.update({ defaultProvider: "p" });
		expect(readJson(globalPath)).toEqual({ retry: { maxRetries: "3" }, defaultModel: "m", defaultProvider: "p" });
		expect(store.get()).toEqual({ retry: {}, defaultModel: "m", defaultProvider: "p" });
	});

	it("reports a bad permissions block as a permission error and applies none of it", () => {
		writeJson(globalPath, { permissions: { mode: "ask", allow: ["bash", 3] }, defaultModel: "m" });
		const store = new SettingsStore(agentDir, cwd);
		expect(store.permissionErrors).toEqual([`${globalPath}: permissions.allow[1]: expected a rule (a string)`]);
		expect(store.errors).toEqual([]);
		expect(store.permissionLayers()).toEqual({});
		expect(store.get()).toEqual({ defaultModel: "m" });
	});

	it("reports a file that is not JSON but mentions permissions as a permission error", () => {
		writeFileSync(projectPath, '{ "permissions": { "deny": ["bash(rm *)"], } ');
		writeFileSync(globalPath, "{ nope");
		const store = new SettingsStore(agentDir, cwd);
		expect(store.errors).toEqual([expect.stringMatching(new RegExp(`^${escapeRegExp(globalPath)}: not valid JSON`))]);
		expect(store.permissionErrors).toEqual([
			expect.stringMatching(new RegExp(`^${escapeRegExp(projectPath)}: not valid JSON .*; it holds permissions$`)),
		]);
	});

	it("reports a bad sandbox block, or a broken file that mentions one, as a permission error (the start fails)", () => {
		writeFileSync(projectPath, '{ "sandbox": { "mode": "workspace-write", } ');
		writeJson(globalPath, { sandbox: { mode: "everything" } });
		const store = new SettingsStore(agentDir, cwd);
		expect(store.permissionErrors).toEqual([
			expect.stringContaining(`${globalPath}: sandbox.mode: expected one of "off", "read-only", "workspace-write"`),
			expect.stringMatching(new RegExp(`^${escapeRegExp(projectPath)}: not valid JSON .*; it holds sandbox$`)),
		]);
		expect(store.sandboxLayers()).toEqual({ user: undefined, project: undefined });
	});

	it("keeps permissions out of get(): each file's block comes from permissionLayers()", () => {
		writeJson(globalPath, { permissions: { mode: "ask", allow: ["bash(npm *)"] } });
		writeJson(projectPath, { permissions: { mode: "auto", deny: ["write(.env)"] } });
		const store = new SettingsStore(agentDir, cwd);
		expect(store.get()).toEqual({});
		expect(store.permissionLayers()).toEqual({
			user: { source: globalPath, block: { mode: "ask", allow: ["bash(npm *)"] } },
			project: { source: projectPath, block: { mode: "auto", deny: ["write(.env)"] } },
		});
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
