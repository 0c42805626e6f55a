/**
 * A small checker for the JSON Schema subset the command and configuration schemas use (type,
 * const, enum, anyOf, required, properties, patternProperties, additionalProperties, items, string
 * and array lengths, pattern, numeric bounds). `true` means the value certainly matches, as
 * TypeBox's validator would also say; `false` means "not certain": the caller asks TypeBox, which
 * also explains what is wrong. Valid commands and configuration files (nearly all of them) are
 * accepted without loading TypeBox's validator, a large module that start-up does not otherwise need.
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

/** Patterns as TypeBox compiles them (Unicode mode), compiled once each. */
const patterns = new Map<string, RegExp | null>();

function patternOf(source: unknown): RegExp | undefined {
	if (typeof source !== "string") return undefined;
	let regexp = patterns.get(source);
	if (regexp === undefined) {
		try {
			regexp = new RegExp(source, "u");
		} catch (error) {
			if (!(error instanceof SyntaxError)) throw error;
			regexp = null;
		}
		patterns.set(source, regexp);
	}
	return regexp ?? undefined;
}

/** Whether `text` has at least `limit` Unicode code points (JSON Schema counts code points). */
function hasMinCodePoints(text: string, limit: number): boolean {
	if (text.length < limit) return false;
	let count = 0;
	for (const _ of text) if (++count >= limit) return true;
	return count >= limit;
}

function codePoints(text: string): number {
	let count = 0;
	for (const _ of text) count++;
	return count;
}

/** The keys of `value` that neither `properties` nor a `patternProperties` pattern covers hold to `schema`. */
function additionalHold(schema: SchemaNode, argument: unknown, value: Record<string, unknown>): boolean {
	if (argument === true) return true;
	if (argument !== false && !isObject(argument)) return false;
	const properties = isObject(schema.properties) ? schema.properties : {};
	const patternSources = isObject(schema.patternProperties) ? Object.keys(schema.patternProperties) : [];
	const regexps: RegExp[] = [];
	for (const source of patternSources) {
		const regexp = patternOf(source);
		if (!regexp) return false;
		regexps.push(regexp);
	}
	for (const key of Object.keys(value)) {
		if (Object.hasOwn(properties, key) || regexps.some((regexp) => regexp.test(key))) continue;
		if (argument === false || !quickCheck(argument, value[key])) return false;
	}
	return true;
}

function patternPropertiesHold(argument: unknown, value: unknown): boolean {
	if (!isObject(argument) || !isObject(value)) return false;
	for (const [source, property] of Object.entries(argument)) {
		const regexp = patternOf(source);
		if (!regexp) return false;
		for (const key of Object.keys(value)) if (regexp.test(key) && !quickCheck(property, value[key])) return false;
	}
	return true;
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
		case "patternProperties":
			return patternPropertiesHold(argument, value);
		case "additionalProperties":
			return isObject(value) && additionalHold(schema, argument, value);
		case "items":
			return Array.isArray(value) && value.every((item) => quickCheck(argument, item));
		case "minItems":
			return bound(argument, Array.isArray(value) ? value.length : undefined, (length, limit) => length >= limit);
		case "maxItems":
			return bound(argument, Array.isArray(value) ? value.length : undefined, (length, limit) => length <= limit);
		case "minLength":
			return typeof argument === "number" && typeof value === "string" && hasMinCodePoints(value, argument);
		case "maxLength":
			return typeof argument === "number" && typeof value === "string" && codePoints(value) <= argument;
		case "pattern": {
			const regexp = patternOf(argument);
			return regexp !== undefined && typeof value === "string" && regexp.test(value);
		}
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
