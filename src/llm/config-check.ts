import type { Static, TSchema } from "typebox";

/**
 * Checks a configuration file's value (settings.json, auth.json) against its TypeBox schema and
 * says where it first goes wrong and what was expected there. Configuration is read while a
 * session is built, synchronously, and TypeBox's validator is an ES module that cannot be loaded
 * synchronously (and costs ~10 ms of start-up when bundled in): this walks the JSON Schema subset
 * the configuration schemas use (type, const, enum, anyOf, properties, required,
 * patternProperties, items, numeric bounds) instead. A test holds it to TypeBox's verdicts.
 * Values are never quoted in what it reports (a file may hold secrets): only their kind.
 */
type SchemaNode = Record<string, unknown>;

export interface SchemaProblem {
	/** Property names and array indexes from the root to the bad value (empty: the root). */
	path: (string | number)[];
	/** What the schema wanted there, in words ("an integer >= 0", `one of "all", "one-at-a-time"`). */
	expected: string;
	/** The kind of value found ("a string", "missing"), or the number when only its range is wrong. */
	found: string;
}

/** Keywords that say nothing about validity. */
const ANNOTATIONS = new Set(["$id", "title", "description", "examples", "default", "~kind", "~optional"]);
const KNOWN = new Set([
	"type",
	"const",
	"enum",
	"anyOf",
	"properties",
	"required",
	"patternProperties",
	"items",
	"minimum",
	"maximum",
	"exclusiveMinimum",
	"exclusiveMaximum",
]);

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** "a string", "an array", "null": the kind of a value, never the value. */
export function kindOf(value: unknown): string {
	if (value === null) return "null";
	if (Array.isArray(value)) return "an array";
	if (typeof value === "number") return Number.isInteger(value) ? "an integer" : "a number";
	return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function typeName(type: unknown): string {
	if (type === "integer" || type === "object" || type === "array") return `an ${type}`;
	return type === "null" ? "null" : `a ${String(type)}`;
}

function hasType(type: unknown, value: unknown): boolean {
	switch (type) {
		case "object":
			return isObject(value);
		case "array":
			return Array.isArray(value);
		case "string":
			return typeof value === "string";
		case "number":
			return typeof value === "number" && Number.isFinite(value);
		case "integer":
			return Number.isInteger(value);
		case "boolean":
			return typeof value === "boolean";
		case "null":
			return value === null;
		default:
			return false;
	}
}

/** The words for what a schema accepts, used where a value fails it as a whole. */
export function expectation(schema: SchemaNode): string {
	if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((item) => JSON.stringify(item)).join(", ")}`;
	if (schema.const !== undefined) return JSON.stringify(schema.const);
	if (Array.isArray(schema.anyOf)) return schema.anyOf.map((branch) => expectation(branch as SchemaNode)).join(" or ");
	const bounds: string[] = [];
	if (typeof schema.minimum === "number") bounds.push(`>= ${schema.minimum}`);
	if (typeof schema.exclusiveMinimum === "number") bounds.push(`> ${schema.exclusiveMinimum}`);
	if (typeof schema.maximum === "number") bounds.push(`<= ${schema.maximum}`);
	if (typeof schema.exclusiveMaximum === "number") bounds.push(`< ${schema.exclusiveMaximum}`);
	const base = schema.type === undefined ? "a value" : typeName(schema.type);
	if (schema.type === "array" && isObject(schema.items)) return `an array of ${plural(expectation(schema.items))}`;
	return bounds.length > 0 ? `${base} ${bounds.join(" and ")}` : base;
}

function plural(expected: string): string {
	return expected.replace(/^an? (\w+)/, "$1s");
}

function fails(schema: SchemaNode, path: (string | number)[], value: unknown): SchemaProblem {
	return { path, expected: expectation(schema), found: kindOf(value) };
}

/** The first place where `value` does not match `schema`, or undefined when it matches. */
export function findSchemaProblem(
	schema: unknown,
	value: unknown,
	path: (string | number)[] = [],
): SchemaProblem | undefined {
	if (!isObject(schema)) throw new Error("config-check: a schema must be an object");
	for (const keyword of Object.keys(schema)) {
		if (!KNOWN.has(keyword) && !ANNOTATIONS.has(keyword))
			throw new Error(`config-check: unsupported keyword ${keyword}`);
	}
	if (schema.type !== undefined && !hasType(schema.type, value)) return fails(schema, path, value);
	if (schema.const !== undefined && schema.const !== value) return fails(schema, path, value);
	if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return fails(schema, path, value);
	if (Array.isArray(schema.anyOf) && !schema.anyOf.some((branch) => !findSchemaProblem(branch, value, path))) {
		return fails(schema, path, value);
	}
	if (typeof value === "number") {
		const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema;
		if (
			(typeof minimum === "number" && value < minimum) ||
			(typeof maximum === "number" && value > maximum) ||
			(typeof exclusiveMinimum === "number" && value <= exclusiveMinimum) ||
			(typeof exclusiveMaximum === "number" && value >= exclusiveMaximum)
		)
			// Of the right type but out of range: the number itself says most (and a range is no secret).
			return { path, expected: expectation(schema), found: String(value) };
	}
	if (Array.isArray(value) && schema.items !== undefined) {
		for (const [index, item] of value.entries()) {
			const problem = findSchemaProblem(schema.items, item, [...path, index]);
			if (problem) return problem;
		}
	}
	if (isObject(value)) return objectProblem(schema, value, path);
	return undefined;
}

function objectProblem(
	schema: SchemaNode,
	value: Record<string, unknown>,
	path: (string | number)[],
): SchemaProblem | undefined {
	const properties = isObject(schema.properties) ? schema.properties : {};
	for (const [name, property] of Object.entries(properties)) {
		if (!Object.hasOwn(value, name)) continue;
		const problem = findSchemaProblem(property, value[name], [...path, name]);
		if (problem) return problem;
	}
	if (Array.isArray(schema.required)) {
		for (const name of schema.required) {
			if (typeof name === "string" && !Object.hasOwn(value, name)) {
				const property = properties[name];
				return {
					path: [...path, name],
					expected: isObject(property) ? expectation(property) : "a value",
					found: "missing",
				};
			}
		}
	}
	if (isObject(schema.patternProperties)) {
		for (const [pattern, property] of Object.entries(schema.patternProperties)) {
			const names = new RegExp(pattern, "u");
			for (const [name, item] of Object.entries(value)) {
				if (!names.test(name)) continue;
				const problem = findSchemaProblem(property, item, [...path, name]);
				if (problem) return problem;
			}
		}
	}
	return undefined;
}

/** `retry.maxRetries`, `permissions.allow[2]`; "the file" for the root. */
export function formatPath(path: readonly (string | number)[]): string {
	if (path.length === 0) return "the file";
	return path.map((part, index) => (typeof part === "number" ? `[${part}]` : index === 0 ? part : `.${part}`)).join("");
}

/** One line for a problem: `<file>: <key> must be <expected>, found <kind>`. */
export function describeProblem(file: string, problem: SchemaProblem): string {
	const found = problem.found === "missing" ? "but it is missing" : `found ${problem.found}`;
	return `${file}: ${formatPath(problem.path)} must be ${problem.expected}, ${found}`;
}

/** Narrows a value to a schema's type when it matches (the check, not a cast). */
export function conforms<S extends TSchema>(schema: S, value: unknown): value is Static<S> {
	return findSchemaProblem(schema, value) === undefined;
}
