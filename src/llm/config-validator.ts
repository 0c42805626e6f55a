import { createRequire } from "node:module";
import type { StaticEncode, TSchema } from "typebox";
import { quickCheck } from "./quick-check.js";

type ValueModule = typeof import("typebox/value");

/**
 * TypeBox's validator, loaded only when a configuration file holds something the quick check
 * cannot vouch for (nearly always a mistake, which TypeBox then explains): start-up with valid
 * files never pays for it, nor for compiling a validator per schema.
 */
let validator: ValueModule["Value"] | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads the validator ahead (its bundled chunk, asynchronously), for an embedder that would
 * rather not have a file with a mistake load it synchronously on first use.
 */
export function preloadConfigValidator(): Promise<void> {
	loading ??= import("typebox/value").then(
		(module) => {
			validator ??= module.Value;
		},
		(error: unknown) => {
			loading = undefined;
			throw new Error("Cannot load the configuration validator (typebox/value)", { cause: error });
		},
	);
	return loading;
}

/** Whether TypeBox's validator was loaded (for tests of what start-up loads). */
export function configValidatorLoaded(): boolean {
	return validator !== undefined;
}

function validatorNow(): ValueModule["Value"] {
	if (!validator) {
		const required: ValueModule = createRequire(import.meta.url)("typebox/value");
		validator = required.Value;
	}
	return validator;
}

/** quickCheck's `true` is TypeBox's: the value has the schema's type. */
function certainlyMatches<T extends TSchema>(schema: T, value: unknown): value is StaticEncode<T> {
	return quickCheck(schema, value);
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
 * A check of values against `schema`; `at` is the key path of the value in its file. The problems
 * name each failing key and what its schema expects (the leaf's `description`), never the value
 * itself, which may be a secret.
 */
export function configCheck<T extends TSchema>(schema: T): ConfigCheck<T> {
	return (value, at) => {
		if (certainlyMatches(schema, value)) return { ok: true, value };
		const Value = validatorNow();
		if (Value.Check(schema, value)) return { ok: true, value };
		// Per key, the outermost schema's error says it best (a union, not each of its branches).
		const best = new Map<string, { depth: number; problem: ConfigProblem }>();
		for (const error of Value.Errors(schema, value)) {
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
