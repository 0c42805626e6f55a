import { createRequire } from "node:module";
import type { StaticEncode, TSchema } from "typebox";
import type { Validator } from "typebox/compile";

type CompileModule = typeof import("typebox/compile");

/**
 * TypeBox's compiler, loaded only when a configuration file exists: start-up without one never
 * pays for it. `preloadConfigValidator` loads the bundled chunk ahead (the CLI does, before it builds
 * a session); a caller that did not preload gets it loaded synchronously on first use.
 */
let compiler: CompileModule | undefined;
let loading: Promise<void> | undefined;

export function preloadConfigValidator(): Promise<void> {
	loading ??= import("typebox/compile").then(
		(module) => {
			compiler ??= module;
		},
		(error: unknown) => {
			loading = undefined;
			throw new Error("Cannot load the configuration validator (typebox/compile)", { cause: error });
		},
	);
	return loading;
}

/** Whether the compiler was loaded (for tests of what start-up loads). */
export function configValidatorLoaded(): boolean {
	return compiler !== undefined;
}

function compilerNow(): CompileModule {
	if (!compiler) {
		const required: CompileModule = createRequire(import.meta.url)("typebox/compile");
		compiler = required;
	}
	return compiler;
}

/** One problem: where (`providers.ollama.models[0].contextWindow`) and what was expected. */
export interface ConfigProblem {
	path: string;
	expected: string;
}

export type CheckResult<T extends TSchema> =
	| { ok: true; value: StaticEncode<T> }
	| { ok: false; problems: ConfigProblem[] };

export type ConfigCheck<T extends TSchema> = (value: unknown, at: string) => CheckResult<T>;

/**
 * A check of values against `schema`, compiled on first use; `at` is the key path of the value in
 * its file. The problems name each failing key and what its schema expects (the leaf's
 * `description`), never the value itself, which may be a secret.
 */
export function configCheck<T extends TSchema>(schema: T): ConfigCheck<T> {
	let validator: Validator<Record<PropertyKey, never>, T> | undefined;
	return (value, at) => {
		const compiled = validator ?? compilerNow().Compile<T>(schema);
		validator = compiled;
		if (compiled.Check(value)) return { ok: true, value };
		// Per key, the outermost schema's error says it best (a union, not each of its branches).
		const best = new Map<string, { depth: number; problem: ConfigProblem }>();
		for (const error of compiled.Errors(value)) {
			const problem = describeProblem(schema, error, at);
			const depth = pointerKeys(error.schemaPath.replace(/^#/, "")).length;
			const known = best.get(problem.path);
			if (!known || depth < known.depth) best.set(problem.path, { depth, problem });
		}
		return { ok: false, problems: [...best.values()].map((entry) => entry.problem) };
	};
}

interface SchemaError {
	keyword: string;
	schemaPath: string;
	instancePath: string;
	params: object;
	message: string;
}

function describeProblem(root: TSchema, error: SchemaError, at: string): ConfigProblem {
	const node = schemaAt(root, error.schemaPath);
	const keys = pointerKeys(error.instancePath);
	const params: Record<string, unknown> = { ...error.params };
	if (error.keyword === "required" && Array.isArray(params.requiredProperties)) {
		const key = String(params.requiredProperties[0]);
		return { path: keyPath(at, [...keys, key]), expected: descriptionOf(propertySchema(node, key)) ?? "a value" };
	}
	if (error.keyword === "additionalProperties" && Array.isArray(params.additionalProperties)) {
		const key = String(params.additionalProperties[0]);
		return { path: keyPath(at, [...keys, key]), expected: `no such key (${descriptionOf(node) ?? error.message})` };
	}
	if (node === false) {
		// A key the schema does not allow (additionalProperties: false): the parent says which are.
		const parent = schemaAt(root, error.schemaPath.replace(/\/[^/]*$/, ""));
		return { path: keyPath(at, keys), expected: `no such key (${descriptionOf(parent) ?? "not allowed"})` };
	}
	return { path: keyPath(at, keys), expected: descriptionOf(node) ?? error.message };
}

/** The schema a `#/properties/a/items/...` path points at (JSON pointer, `~1` and `~0` unescaped). */
function schemaAt(root: TSchema, schemaPath: string): unknown {
	let node: unknown = root;
	for (const key of pointerKeys(schemaPath.replace(/^#/, ""))) node = isRecord(node) ? node[key] : undefined;
	return node;
}

function propertySchema(node: unknown, key: string): unknown {
	return isRecord(node) && isRecord(node.properties) ? node.properties[key] : undefined;
}

function descriptionOf(node: unknown): string | undefined {
	return isRecord(node) && typeof node.description === "string" ? node.description : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function pointerKeys(pointer: string): string[] {
	if (pointer === "" || pointer === "/") return [];
	return pointer
		.slice(1)
		.split("/")
		.map((key) => key.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/** `providers.ollama.models[0].contextWindow`; keys that are not identifiers are quoted (`["llama-cpp"]`). */
export function keyPath(at: string, keys: readonly string[]): string {
	let path = at;
	for (const key of keys) {
		if (/^\d+$/.test(key)) path += `[${key}]`;
		else if (/^[A-Za-z_$][\w$]*$/.test(key)) path += path ? `.${key}` : key;
		else path += `[${JSON.stringify(key)}]`;
	}
	return path;
}
