import fc from "fast-check";
import { Value } from "typebox/value";
import { describe, expect, it } from "vitest";
import { COMMANDS, ExtensionUiResponseSchema } from "../../src/rpc/protocol/commands.js";
import { quickCheck } from "../../src/rpc/protocol/quick-check.js";
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
		expect(quickCheck({ type: "string", pattern: "^a" }, "a")).toBe(false);
		expect(quickCheck({ type: "string", description: "text" }, "a")).toBe(true);
		expect(quickCheck("not a schema", "a")).toBe(false);
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
