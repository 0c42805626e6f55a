import fc from "fast-check";
import { Value } from "typebox/value";
import { describe, expect, it } from "vitest";
import { conforms, describeProblem, findSchemaProblem } from "../../src/llm/config-check.js";
import { Type } from "../../src/llm/schema-builders.js";
import { SettingsSchema } from "../../src/resources/settings-schema.js";

/** Values of every kind, including the ones each settings key expects. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
	fc.constantFrom("all", "one-at-a-time", "auto", "ask", "read-only", "", "x", null, true, false),
	fc.integer({ min: -5, max: 100_000 }),
	fc.double({ noNaN: true, noDefaultInfinity: true, min: -2, max: 2 }),
	fc.array(fc.oneof(fc.string({ maxLength: 4 }), fc.integer()), { maxLength: 3 }),
	fc.dictionary(
		fc.constantFrom(
			"enabled",
			"maxRetries",
			"baseDelayMs",
			"compression_ratio",
			"preserve_recent",
			"query",
			"low",
			"high",
			"mode",
			"allow",
			"deny",
			"timeoutMs",
			"provider",
			"other",
		),
		fc.oneof(
			fc.constantFrom(true, "ask", "q", null, ["bash"], [3]),
			fc.integer({ min: -1, max: 10 }),
			fc.double({ noNaN: true, min: -1, max: 2 }),
		),
		{ maxKeys: 4 },
	),
);

const settingsLike = fc.dictionary(fc.constantFrom(...Object.keys(SettingsSchema.properties), "unknownKey"), anyValue, {
	maxKeys: 5,
});

describe("findSchemaProblem", () => {
	it("agrees with TypeBox on the settings schema", () => {
		fc.assert(
			fc.property(settingsLike, (value) => {
				expect(conforms(SettingsSchema, value)).toBe(Value.Check(SettingsSchema, value));
			}),
			{ numRuns: 4000 },
		);
	});

	it("agrees with TypeBox on records, unions, literals and required fields", () => {
		const schema = Type.Object({
			name: Type.String(),
			tags: Type.Optional(Type.Record(Type.String(), Type.Integer({ minimum: 0 }))),
			kind: Type.Optional(Type.Union([Type.Literal("a"), Type.Null()])),
		});
		fc.assert(
			fc.property(fc.dictionary(fc.constantFrom("name", "tags", "kind", "x"), anyValue, { maxKeys: 3 }), (value) => {
				expect(conforms(schema, value)).toBe(Value.Check(schema, value));
			}),
			{ numRuns: 3000 },
		);
	});

	it("names the key path and what was expected, never a value but an out-of-range number", () => {
		const describe = (value: unknown) => {
			const problem = findSchemaProblem(SettingsSchema, value);
			return problem && describeProblem("/s.json", problem);
		};
		expect(describe({ retry: { maxRetries: "3" } })).toBe(
			"/s.json: retry.maxRetries must be an integer >= 0, found a string",
		);
		expect(describe({ steeringMode: "sometimes" })).toBe(
			'/s.json: steeringMode must be one of "all", "one-at-a-time", found a string',
		);
		expect(describe({ compaction: { compression_ratio: 1.5 } })).toBe(
			"/s.json: compaction.compression_ratio must be a number > 0 and < 1, found 1.5",
		);
		expect(describe({ permissions: { allow: ["bash", 7] } })).toBe(
			"/s.json: permissions.allow[1] must be a string, found an integer",
		);
		expect(describe({ permissions: { deny: "bash" } })).toBe(
			"/s.json: permissions.deny must be an array of strings, found a string",
		);
		expect(describe({ shellPath: null })).toBe("/s.json: shellPath must be a string, found null");
		expect(describe({ somethingElse: { any: "thing" }, defaultModel: "m" })).toBeUndefined();
	});

	it("refuses schemas with keywords it does not know (so none is silently ignored)", () => {
		expect(() => findSchemaProblem({ type: "string", pattern: "^a" }, "a")).toThrow("unsupported keyword pattern");
	});
});
