import fc from "fast-check";
import { Value } from "typebox/value";
import { describe, expect, it } from "vitest";
import {
	ModelOverridesSchema,
	ModelSchema,
	ModelsFileSchema,
	ProviderSchema,
} from "../../src/llm/models-json-schema.js";
import { quickCheck } from "../../src/llm/quick-check.js";
import { SettingsSchema } from "../../src/resources/settings-schema.js";
import { COMMANDS, ExtensionUiResponseSchema } from "../../src/rpc/protocol/commands.js";
import { parseInput } from "../../src/rpc/protocol/validate.js";

const schemas = [...Object.entries(COMMANDS), ["extension_ui_response", ExtensionUiResponseSchema] as const];

/** Field values likely to hit the schemas' types, constants and enums, plus arbitrary JSON. */
const fieldValue = fc.oneof(
	fc.constantFrom("steer", "followUp", "all", "one-at-a-time", "high", "off", "image", "abc", "", 0, 1, 1.5, -1, true),
	fc.constantFrom(null, [], {}, [{ type: "image", data: "x", mimeType: "image/png" }], [{ type: "image" }]),
	fc.jsonValue({ maxDepth: 2 }),
);

function candidate(type: string) {
	const fields = ["id", "message", "images", "streamingBehavior", "provider", "modelId", "level", "mode", "enabled"];
	return fc
		.dictionary(fc.constantFrom(...fields, "value", "confirmed", "cancelled", "command", "entryId"), fieldValue, {
			maxKeys: 5,
		})
		.map((fieldsOf) => ({ ...fieldsOf, type }));
}

describe("quickCheck", () => {
	it("never accepts what TypeBox's validator rejects", () => {
		let accepted = 0;
		for (const [type, schema] of schemas) {
			fc.assert(
				fc.property(candidate(type), (value) => {
					if (!quickCheck(schema, value)) return;
					accepted++;
					expect(Value.Check(schema, value)).toBe(true);
				}),
				{ numRuns: 300 },
			);
		}
		// The property above is only worth something when many candidates were accepted.
		expect(accepted).toBeGreaterThan(1000);
	});

	it("accepts ordinary valid commands without the full validator", () => {
		const valid: Record<string, unknown>[] = [
			{ type: "get_state" },
			{ id: 7, type: "prompt", message: "hi", images: [{ type: "image", data: "AA==", mimeType: "image/png" }] },
			{ id: "a", type: "prompt", message: "hi", streamingBehavior: "steer" },
			{ type: "set_model", provider: "anthropic", modelId: "claude-sonnet-4-5" },
			{ type: "set_thinking_level", level: "high" },
			{ type: "extension_ui_response", id: "d1", confirmed: true },
		];
		for (const command of valid) {
			const schema =
				command.type === "extension_ui_response"
					? ExtensionUiResponseSchema
					: COMMANDS[command.type as keyof typeof COMMANDS];
			expect(Value.Check(schema, command)).toBe(true);
			expect(quickCheck(schema, command)).toBe(true);
		}
	});

	it("is not certain about keywords it does not know", () => {
		expect(quickCheck({ type: "string", format: "email" }, "a@b")).toBe(false);
		expect(quickCheck({ type: "string", pattern: "(" }, "(")).toBe(false);
		expect(quickCheck({ type: "string", description: "text" }, "a")).toBe(true);
		expect(quickCheck("not a schema", "a")).toBe(false);
	});
});

describe("quickCheck on the configuration schemas", () => {
	const configSchemas = { SettingsSchema, ModelsFileSchema, ProviderSchema, ModelSchema, ModelOverridesSchema };
	/** Values near the settings' and providers' shapes: their keys, with values of every kind. */
	const configValue = fc.letrec((tie) => ({
		value: fc.oneof(
			{ depthSize: "small" },
			fc.constantFrom("", "x", "http://h/v1", "$KEY", "!cmd", "openai-completions", "anthropic-messages", "steer"),
			fc.constantFrom("high", "all", "text", "image", "ask", "\u{1F600}", "\n"),
			fc.constantFrom(0, 1, -1, 0.5, 100_000, true, false, null),
			fc.array(tie("value"), { maxLength: 3 }),
			tie("object"),
		),
		object: fc.dictionary(
			fc.constantFrom(
				...["id", "name", "api", "baseUrl", "apiKey", "models", "providers", "compat", "headers", "input"],
				...["contextWindow", "maxTokens", "reasoning", "modelOverrides", "defaultModel", "retry", "enabled"],
				...["maxRetries", "baseDelayMs", "compaction", "permissions", "theme", "x", "__proto__", "a\nb"],
			),
			tie("value"),
			{ maxKeys: 6 },
		),
	}));

	it("never accepts what TypeBox's validator rejects, and accepts valid files", () => {
		let accepted = 0;
		for (const schema of Object.values(configSchemas)) {
			fc.assert(
				fc.property(configValue.object, (value) => {
					if (!quickCheck(schema, value)) return;
					accepted++;
					expect(Value.Check(schema, value)).toBe(true);
				}),
				{ numRuns: 400 },
			);
		}
		expect(accepted).toBeGreaterThan(100);
		const model = { id: "m", name: "M", reasoning: false, input: ["text"], contextWindow: 1000, maxTokens: 100 };
		const file = { providers: { local: { baseUrl: "http://x/v1", api: "openai-completions", models: [model] } } };
		expect(quickCheck(ModelsFileSchema, file)).toBe(true);
		expect(quickCheck(ProviderSchema, file.providers.local)).toBe(true);
		expect(quickCheck(SettingsSchema, { retry: { enabled: true, maxRetries: 3 }, idlePreload: false })).toBe(true);
	});

	it("follows additionalProperties, patternProperties, lengths and patterns as TypeBox does", () => {
		const closed = { type: "object", properties: { a: { type: "number" } }, additionalProperties: false };
		expect(quickCheck(closed, { a: 1 })).toBe(true);
		expect(quickCheck(closed, { a: 1, b: 2 })).toBe(false);
		const typed = {
			type: "object",
			patternProperties: { "^x": { type: "string" } },
			additionalProperties: { type: "number" },
		};
		expect(quickCheck(typed, { xa: "s", b: 1 })).toBe(true);
		expect(quickCheck(typed, { xa: 1 })).toBe(false);
		expect(quickCheck(typed, { b: "s" })).toBe(false);
		// `.` does not match a line break: such a key is not covered by the pattern (nor by TypeBox).
		const record = { type: "object", patternProperties: { "^.*$": { type: "number" } } };
		expect(quickCheck(record, { "a\nb": "not a number" })).toBe(Value.Check(record, { "a\nb": "not a number" }));
		// Lengths count code points: one emoji is one character.
		expect(quickCheck({ type: "string", minLength: 2 }, "\u{1F600}")).toBe(false);
		expect(quickCheck({ type: "string", maxLength: 1 }, "\u{1F600}")).toBe(true);
		expect(quickCheck({ type: "string", pattern: "^\\p{L}+$" }, "é")).toBe(true);
		expect(quickCheck({ type: "array", minItems: 1, maxItems: 2 }, [1])).toBe(true);
		expect(quickCheck({ type: "array", minItems: 1 }, [])).toBe(false);
	});
});

describe("parseInput", () => {
	it("asks to wait for the full validator only for a command that is not plainly valid", async () => {
		const text = (value: unknown) => ({ ok: true as const, text: JSON.stringify(value) });
		expect(parseInput(text({ type: "get_state", id: 1 })).kind).toBe("command");
		const first = parseInput(text({ type: "prompt", id: 2 }));
		if (first.kind !== "wait") throw new Error(`expected "wait", got ${first.kind}`);
		await first.ready;
		expect(parseInput(text({ type: "prompt", id: 2 }))).toEqual({
			kind: "error",
			response: {
				id: 2,
				type: "response",
				command: "prompt",
				success: false,
				error: 'Invalid "prompt" command: missing required field "message"',
			},
		});
	});
});
