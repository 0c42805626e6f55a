/**
 * A small checker for the JSON Schema subset the command schemas use (type, const, enum, anyOf,
 * required, properties, items, numeric bounds). `true` means the value certainly matches, as
 * TypeBox's validator would also say; `false` means "not certain": the caller asks TypeBox, which
 * also explains what is wrong. Valid commands (nearly all of them) are accepted without loading
 * TypeBox's validator, a large module that start-up does not otherwise need.
 */
type SchemaNode = Record<string, unknown>;

/** Keywords that say nothing about validity. */
const ANNOTATIONS = new Set(["$id", "title", "description", "examples", "default"]);

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isScalar(value: unknown): boolean {
	return value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean";
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

function bound(limit: unknown, value: unknown, holds: (value: number, limit: number) => boolean): boolean {
	return typeof limit === "number" && typeof value === "number" && holds(value, limit);
}

function keywordHolds(schema: SchemaNode, keyword: string, argument: unknown, value: unknown): boolean {
	switch (keyword) {
		case "type":
			return hasType(argument, value);
		case "const":
			return isScalar(argument) && argument === value;
		case "enum":
			return Array.isArray(argument) && argument.every(isScalar) && argument.includes(value);
		case "anyOf":
			return Array.isArray(argument) && argument.some((branch) => quickCheck(branch, value));
		case "required":
			return (
				Array.isArray(argument) &&
				isObject(value) &&
				argument.every((name) => typeof name === "string" && Object.hasOwn(value, name))
			);
		case "properties":
			if (!isObject(argument)) return false;
			// Without "type": "object" beside it, "properties" would accept a non-object: leave that to TypeBox.
			if (!isObject(value)) return false;
			return Object.entries(argument).every(
				([name, property]) => !Object.hasOwn(value, name) || quickCheck(property, value[name]),
			);
		case "items":
			return Array.isArray(value) && value.every((item) => quickCheck(argument, item));
		case "minimum":
			return bound(argument, value, (number, limit) => number >= limit);
		case "maximum":
			return bound(argument, value, (number, limit) => number <= limit);
		case "exclusiveMinimum":
			return bound(argument, value, (number, limit) => number > limit);
		case "exclusiveMaximum":
			return bound(argument, value, (number, limit) => number < limit);
		default:
			// A keyword not known here: not certain.
			return ANNOTATIONS.has(keyword) || schema[keyword] === undefined;
	}
}

/** True only when `value` certainly matches `schema`. */
export function quickCheck(schema: unknown, value: unknown): boolean {
	if (!isObject(schema)) return false;
	for (const keyword in schema) {
		if (!keywordHolds(schema, keyword, schema[keyword], value)) return false;
	}
	return true;
}
