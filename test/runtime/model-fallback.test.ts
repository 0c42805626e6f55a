import { describe, expect, it } from "vitest";
import { matchesPattern } from "../../src/runtime/model-fallback.js";

describe("fallback patterns", () => {
	const model = { provider: "openrouter", id: "anthropic/claude-sonnet-4.5" };

	it("match provider/id exactly, a bare id, or either with * for any run of characters", () => {
		expect(matchesPattern(model, "openrouter/anthropic/claude-sonnet-4.5")).toBe(true);
		expect(matchesPattern(model, "anthropic/claude-sonnet-4.5")).toBe(false);
		expect(matchesPattern({ provider: "anthropic", id: "claude-sonnet-4.5" }, "claude-sonnet-4.5")).toBe(true);
		expect(matchesPattern(model, "openrouter/*")).toBe(true);
		expect(matchesPattern(model, "*/anthropic/claude-*")).toBe(true);
		expect(matchesPattern(model, "openai/*")).toBe(false);
	});

	it("treat regular-expression characters literally", () => {
		expect(matchesPattern({ provider: "p", id: "a.b" }, "p/a.b")).toBe(true);
		expect(matchesPattern({ provider: "p", id: "axb" }, "p/a.b")).toBe(false);
		expect(matchesPattern({ provider: "p", id: "axb" }, "p/a.*")).toBe(false);
		expect(matchesPattern({ provider: "p", id: "a(1)" }, "p/a(*)")).toBe(true);
	});
});
