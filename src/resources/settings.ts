import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { conforms, describeProblem, findSchemaProblem } from "../llm/config-check.js";
import { type PermissionsSettings, type SettingsFile, SettingsSchema } from "./settings-schema.js";

export type { CompactionSettings, PermissionsSettings, RetrySettings } from "./settings-schema.js";

export type QueueMode = "all" | "one-at-a-time";

/** settings.json: `<agentDir>/settings.json`, overridden key by key by `<cwd>/.atomic/settings.json`. */
export type Settings = SettingsFile;

/** The permissions block of one file, with the file it came from. */
export interface PermissionsLayer {
	source: string;
	block: PermissionsSettings;
}

type Path = (string | number)[];

/** A file as written (kept for rewriting it) and its validated settings. */
interface FileContent {
	raw: Record<string, unknown>;
	valid: Settings;
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Removes the value a problem points at: the property named last on its path (an array goes
 * as a whole). Returns whether something was removed.
 */
function removeAt(root: Record<string, unknown>, path: Path): boolean {
	const keys = path.slice(0, path.findLastIndex((part) => typeof part === "string") + 1);
	for (let length = keys.length; length > 0; length--) {
		let parent: unknown = root;
		for (const key of keys.slice(0, length - 1)) parent = isObject(parent) ? parent[String(key)] : undefined;
		const key = String(keys[length - 1]);
		if (isObject(parent) && Object.hasOwn(parent, key)) {
			delete parent[key];
			return true;
		}
	}
	return false;
}

/**
 * One settings file, checked against the schema: each value of the wrong kind is reported and
 * dropped (the rest of the file applies). A bad `permissions` block is reported in
 * `permissionErrors` instead: the policy the user wrote is unknown, so nothing may run under it.
 */
function readSettingsFile(path: string, store: { errors: string[]; permissionErrors: string[] }): FileContent {
	if (!existsSync(path)) return { raw: {}, valid: {} };
	let text: string;
	let data: unknown;
	try {
		text = readFileSync(path, "utf8");
	} catch (error) {
		store.errors.push(`${path}: cannot be read (${error instanceof Error ? error.message : String(error)})`);
		return { raw: {}, valid: {} };
	}
	try {
		data = JSON.parse(text);
	} catch (error) {
		const message = `${path}: not valid JSON (${error instanceof Error ? error.message : String(error)})`;
		// Its rules cannot be known: running without them could run what they forbid.
		if (text.includes('"permissions"')) store.permissionErrors.push(`${message}; it holds permissions`);
		else store.errors.push(message);
		return { raw: {}, valid: {} };
	}
	if (!isObject(data)) {
		store.errors.push(`${path}: expected a JSON object`);
		return { raw: {}, valid: {} };
	}
	return { raw: data, valid: validate(path, data, store) };
}

function validate(
	path: string,
	data: Record<string, unknown>,
	store: { errors: string[]; permissionErrors: string[] },
): Settings {
	const value = structuredClone(data);
	for (
		let problem = findSchemaProblem(SettingsSchema, value);
		problem;
		problem = findSchemaProblem(SettingsSchema, value)
	) {
		if (problem.path[0] === "permissions") {
			store.permissionErrors.push(describeProblem(path, problem));
			delete value.permissions;
		} else {
			store.errors.push(`${describeProblem(path, problem)}; the value is ignored`);
			if (!removeAt(value, problem.path)) return {};
		}
	}
	return conforms(SettingsSchema, value) ? value : {};
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

	/** The effective settings (a fresh merged copy), without `permissions`. */
	get(): Settings {
		// Deep copy: the merge shares nested objects with the stored state, which update() persists.
		const merged = structuredClone(mergeSettings(this.global, this.project));
		delete merged.permissions;
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

	/** Applies a change and persists it to the global settings file. */
	update(change: Settings): void {
		this.global = mergeSettings(this.global, change);
		this.globalRaw = mergeSettings(this.globalRaw, change);
		mkdirSync(dirname(this.globalPath), { recursive: true });
		const temporary = `${this.globalPath}.${process.pid}.tmp`;
		writeFileSync(temporary, `${JSON.stringify(this.globalRaw, null, 2)}\n`);
		renameSync(temporary, this.globalPath);
	}
}
