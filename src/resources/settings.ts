import { renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ensureDirectorySync } from "../platform/ensure-directory.js";
import { MAX_CONFIG_FILE_BYTES, readOptionalTextFileSync } from "../platform/regular-file.js";

export type QueueMode = "all" | "one-at-a-time";

export interface RetrySettings {
	enabled?: boolean;
	maxRetries?: number;
	baseDelayMs?: number;
	/** Retries inside the provider SDK; Atomic keeps them at 0 and retries itself. */
	provider?: { maxRetries?: number; timeoutMs?: number };
}

export interface CompactionSettings {
	enabled?: boolean;
	reserveTokens?: number;
	compression_ratio?: number;
	preserve_recent?: number;
	query?: string;
}

/** settings.json: `<agentDir>/settings.json`, overridden key by key by `<cwd>/.atomic/settings.json`. */
export interface Settings {
	defaultProvider?: string;
	defaultModel?: string;
	defaultThinkingLevel?: string;
	steeringMode?: QueueMode;
	followUpMode?: QueueMode;
	/** Shorthand for compaction.enabled. */
	autoCompaction?: boolean;
	compaction?: CompactionSettings;
	retry?: RetrySettings;
	sessionDir?: string;
	/** Token budgets per thinking level for budget-based providers. */
	thinkingBudgets?: Record<string, number>;
	/** Give up on a provider stream that sends nothing for this long (ms); 0 disables. */
	streamIdleTimeoutMs?: number;
	/** The shell for bash; default: $SHELL when it is bash or zsh, else /bin/bash, else sh. */
	shellPath?: string;
	/** Model fallback tiers: `provider/id` patterns (`*` allowed), tried in order when the model fails for good. */
	fallbackModels?: string[];
	/** Quiet time (ms) after which a busy session sends a heartbeat; 0: never. */
	heartbeatMs?: number;
	[key: string]: unknown;
}

export interface SettingsLoad {
	settings: Settings;
	/** Problems found (unreadable JSON); the file is then ignored. */
	errors: string[];
}

function readJsonObject(path: string, errors: string[]): Settings {
	let text: string | undefined;
	try {
		// Only a regular file is read: a FIFO named settings.json must not hold up the start.
		text = readOptionalTextFileSync(path, { maxBytes: MAX_CONFIG_FILE_BYTES });
	} catch (error) {
		errors.push(`${path}: cannot read (${error instanceof Error ? error.message : String(error)})`);
		return {};
	}
	if (text === undefined) return {};
	try {
		const data: unknown = JSON.parse(text);
		if (data && typeof data === "object" && !Array.isArray(data)) return data as Settings;
		errors.push(`${path}: expected a JSON object`);
	} catch (error) {
		errors.push(`${path}: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
	}
	return {};
}

function mergeSettings(base: Settings, override: Settings): Settings {
	const merged: Settings = { ...base };
	for (const [key, value] of Object.entries(override)) {
		const current = merged[key];
		merged[key] =
			value &&
			typeof value === "object" &&
			!Array.isArray(value) &&
			current &&
			typeof current === "object" &&
			!Array.isArray(current)
				? { ...current, ...value }
				: value;
	}
	return merged;
}

/**
 * Global settings plus project overrides. Changes made through `update` are written to the global
 * file only (atomically), so a project file never gains the user's choices.
 */
export class SettingsStore {
	private global: Settings;
	private project: Settings;
	readonly errors: string[] = [];
	readonly globalPath: string;
	readonly projectPath: string;

	constructor(agentDir: string, cwd: string) {
		this.globalPath = join(agentDir, "settings.json");
		this.projectPath = join(cwd, ".atomic", "settings.json");
		this.global = readJsonObject(this.globalPath, this.errors);
		this.project = readJsonObject(this.projectPath, this.errors);
	}

	/** The effective settings (a fresh merged copy). */
	get(): Settings {
		// Deep copy: the merge shares nested objects with the stored state, which update() persists.
		return structuredClone(mergeSettings(this.global, this.project));
	}

	/** The user's own settings (the global file alone): for keys a project must not set. */
	userSettings(): Settings {
		return structuredClone(this.global);
	}

	/** Applies a change and persists it to the global settings file. */
	update(change: Settings): void {
		this.global = mergeSettings(this.global, change);
		ensureDirectorySync(dirname(this.globalPath));
		const temporary = `${this.globalPath}.${process.pid}.tmp`;
		writeFileSync(temporary, `${JSON.stringify(this.global, null, 2)}\n`);
		renameSync(temporary, this.globalPath);
	}
}
