import { renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { TSchema } from "typebox";
import { type ConfigCheck, type ConfigProblem, configCheck, keyPath } from "../llm/config-validator.js";
import { ensureDirectorySync } from "../platform/ensure-directory.js";
import { MAX_CONFIG_FILE_BYTES, readOptionalTextFileSync } from "../platform/regular-file.js";
import {
	type PermissionsSettings,
	type SandboxSettingsBlock,
	type SettingsFile,
	SettingsSchema,
} from "./settings-schema.js";

export type { CompactionSettings, PermissionsSettings, RetrySettings } from "./settings-schema.js";

export type QueueMode = "all" | "one-at-a-time";

/** settings.json: `<agentDir>/settings.json`, overridden key by key by `<cwd>/.atomic/settings.json`. */
export type Settings = SettingsFile;

/** The permissions block of one file, with the file it came from. */
export interface PermissionsLayer {
	source: string;
	block: PermissionsSettings;
}

/** A file as written (kept for rewriting it) and its validated settings. */
interface FileContent {
	raw: Record<string, unknown>;
	valid: Settings;
}

interface Problems {
	errors: string[];
	permissionErrors: string[];
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isSchema(value: unknown): value is TSchema {
	return isObject(value);
}

const checkFile = configCheck(SettingsSchema);
const PROPERTIES: Record<string, unknown> = SettingsSchema.properties;
const checks = new Map<TSchema, ConfigCheck<TSchema>>();

/** The compiled check of a part of the schema (made on first use). */
function checkOf(schema: TSchema): ConfigCheck<TSchema> {
	let check = checks.get(schema);
	if (!check) {
		check = configCheck(schema);
		checks.set(schema, check);
	}
	return check;
}

function lines(path: string, problems: ConfigProblem[], suffix = ""): string[] {
	return problems.map((problem) => `${path}: ${problem.path || "(the file)"}: expected ${problem.expected}${suffix}`);
}

/**
 * The part of `value` that matches `schema`: all of it, or for an object, key by key (keys the
 * schema does not name are kept), reporting what was left out. Undefined when nothing is kept.
 */
function salvage(schema: TSchema, value: unknown, at: string, report: (problems: ConfigProblem[]) => void): unknown {
	const checked = checkOf(schema)(value, at);
	if (checked.ok) return value;
	const properties = "properties" in schema && isObject(schema.properties) ? schema.properties : undefined;
	if (!properties || !isObject(value)) {
		report(checked.problems);
		return undefined;
	}
	const kept: Record<string, unknown> = {};
	for (const [key, item] of Object.entries(value)) {
		const property = properties[key];
		const part = isSchema(property) ? salvage(property, item, keyPath(at, [key]), report) : item;
		if (part !== undefined) kept[key] = part;
	}
	return kept;
}

/**
 * One settings file, checked against the schema: each value of the wrong kind is reported and
 * dropped (the rest of the file applies). A bad `permissions` block is reported in
 * `permissionErrors` instead: the policy the user wrote is unknown, so nothing may run under it.
 */
function validate(path: string, data: Record<string, unknown>, problems: Problems): Settings {
	const whole = checkFile(data, "");
	if (whole.ok) return whole.value;
	const kept: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(data)) {
		const schema = PROPERTIES[key];
		if (!isSchema(schema)) {
			kept[key] = value;
		} else if (key === "permissions" || key === "sandbox") {
			const checked = checkOf(schema)(value, key);
			if (checked.ok) kept[key] = value;
			else problems.permissionErrors.push(...lines(path, checked.problems));
		} else {
			const part = salvage(schema, value, key, (found) =>
				problems.errors.push(...lines(path, found, "; the value is ignored")),
			);
			if (part !== undefined) kept[key] = part;
		}
	}
	const checked = checkFile(kept, "");
	return checked.ok ? checked.value : {};
}

function readSettingsFile(path: string, problems: Problems): FileContent {
	let text: string | undefined;
	let data: unknown;
	try {
		// Only a regular file is read: a FIFO named settings.json must not hold up the start.
		text = readOptionalTextFileSync(path, { maxBytes: MAX_CONFIG_FILE_BYTES });
	} catch (error) {
		problems.errors.push(`${path}: cannot be read (${error instanceof Error ? error.message : String(error)})`);
		return { raw: {}, valid: {} };
	}
	if (text === undefined) return { raw: {}, valid: {} };
	try {
		data = JSON.parse(text);
	} catch (error) {
		const message = `${path}: not valid JSON (${error instanceof Error ? error.message : String(error)})`;
		// Its rules cannot be known: running without them could run what they forbid.
		const held = ["permissions", "sandbox"].filter((key) => text?.includes(`"${key}"`));
		if (held.length > 0) problems.permissionErrors.push(`${message}; it holds ${held.join(" and ")}`);
		else problems.errors.push(message);
		return { raw: {}, valid: {} };
	}
	if (!isObject(data)) {
		problems.errors.push(`${path}: expected a JSON object`);
		return { raw: {}, valid: {} };
	}
	return { raw: data, valid: validate(path, data, problems) };
}

function mergeSettings(base: Settings, override: Settings): Settings {
	const merged: Settings = { ...base };
	for (const [key, value] of Object.entries(override)) {
		const current = merged[key];
		merged[key] = isObject(value) && isObject(current) ? { ...current, ...value } : value;
	}
	return merged;
}

/**
 * Global settings plus project overrides. Changes made through `update` are written to the global
 * file only (atomically), so a project file never gains the user's choices. `permissions` is not
 * merged key by key: see `permissionLayers`.
 */
export class SettingsStore {
	/** The global file as written: `update` rewrites it without losing what validation dropped. */
	private globalRaw: Record<string, unknown>;
	private global: Settings;
	private project: Settings;
	/** Problems found (unreadable JSON, values of the wrong kind); what they concern is ignored. */
	readonly errors: string[] = [];
	/** Problems in a `permissions` block (or a broken file that has one): the session must not start. */
	readonly permissionErrors: string[] = [];
	readonly globalPath: string;
	readonly projectPath: string;

	constructor(agentDir: string, cwd: string) {
		this.globalPath = join(agentDir, "settings.json");
		this.projectPath = join(cwd, ".atomic", "settings.json");
		const global = readSettingsFile(this.globalPath, this);
		this.globalRaw = global.raw;
		this.global = global.valid;
		this.project = readSettingsFile(this.projectPath, this).valid;
	}

	/** The effective settings (a fresh merged copy), without `permissions` and `sandbox` (merged by their own rules). */
	get(): Settings {
		// Deep copy: the merge shares nested objects with the stored state, which update() persists.
		const merged = structuredClone(mergeSettings(this.global, this.project));
		delete merged.permissions;
		delete merged.sandbox;
		return merged;
	}

	/** The user's and the project's permissions blocks, each with its file. */
	permissionLayers(): { user?: PermissionsLayer; project?: PermissionsLayer } {
		const layer = (source: string, block: PermissionsSettings | undefined) =>
			block ? { source, block: structuredClone(block) } : undefined;
		return {
			user: layer(this.globalPath, this.global.permissions),
			project: layer(this.projectPath, this.project.permissions),
		};
	}

	/** The user's and the project's sandbox blocks; the project's with its file. */
	sandboxLayers(): { user?: SandboxSettingsBlock; project?: { source: string; block: SandboxSettingsBlock } } {
		const project = this.project.sandbox;
		return {
			user: this.global.sandbox ? structuredClone(this.global.sandbox) : undefined,
			project: project ? { source: this.projectPath, block: structuredClone(project) } : undefined,
		};
	}

	/** The user's own settings (the global file alone): for keys a project must not set. */
	userSettings(): Settings {
		return structuredClone(this.global);
	}

	/** Applies a change and persists it to the global settings file. */
	update(change: Settings): void {
		this.global = mergeSettings(this.global, change);
		this.globalRaw = mergeSettings(this.globalRaw, change);
		ensureDirectorySync(dirname(this.globalPath));
		const temporary = `${this.globalPath}.${process.pid}.tmp`;
		writeFileSync(temporary, `${JSON.stringify(this.globalRaw, null, 2)}\n`);
		renameSync(temporary, this.globalPath);
	}
}
