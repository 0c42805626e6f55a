import { Type } from "typebox";
import { beforeEach, describe, expect, it, vi } from "vitest";

beforeEach(() => {
	vi.resetModules();
});

const schema = Type.Object({
	path: Type.String(),
	limit: Type.Optional(Type.Integer({ minimum: 1 })),
	mode: Type.Optional(Type.Union([Type.Literal("a"), Type.Literal("b")])),
});

describe("tool argument validation", () => {
	it("accepts matching arguments without loading TypeBox's validator, as a copy", async () => {
		const { validateArguments, argumentValidatorLoaded } = await import("../../src/agent/validation.js");
		const args = { path: "a.txt", limit: 3, mode: "b" };
		const result = await validateArguments(schema, args);
		expect(result).toEqual({ ok: true, value: args });
		if (result.ok) expect(result.value).not.toBe(args);
		expect(argumentValidatorLoaded()).toBe(false);
	});

	it("converts what converts losslessly and names what does not match, with the validator", async () => {
		const { validateArguments, argumentValidatorLoaded } = await import("../../src/agent/validation.js");
		expect(await validateArguments(schema, { path: "a.txt", limit: "5" })).toEqual({
			ok: true,
			value: { path: "a.txt", limit: 5 },
		});
		expect(argumentValidatorLoaded()).toBe(true);
		const bad = await validateArguments(schema, { limit: 0, mode: "c" });
		expect(bad.ok).toBe(false);
		if (!bad.ok) {
			expect(bad.message).toMatch(/^Invalid arguments: /);
			expect(bad.message).toContain("path");
			expect(bad.message).toContain("limit");
		}
	});
});
