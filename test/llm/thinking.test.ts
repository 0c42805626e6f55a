import { describe, expect, it } from "vitest";
import {
	clampThinkingLevel,
	DEFAULT_THINKING_BUDGETS,
	isThinkingLevel,
	mappedThinkingValue,
	supportedThinkingLevels,
	thinkingBudget,
} from "../../src/llm/thinking.js";
import type { ThinkingLevelMap } from "../../src/llm/types.js";

const reasoning = (thinkingLevelMap?: ThinkingLevelMap) => ({ reasoning: true, thinkingLevelMap });
const plain = { reasoning: false };

describe("supportedThinkingLevels", () => {
	it("offers only off for a missing or non-reasoning model", () => {
		expect(supportedThinkingLevels(undefined)).toEqual(["off"]);
		expect(supportedThinkingLevels(plain)).toEqual(["off"]);
		expect(supportedThinkingLevels({ reasoning: false, thinkingLevelMap: { xhigh: "xhigh" } })).toEqual(["off"]);
	});

	it("offers off through high for a reasoning model without a map", () => {
		expect(supportedThinkingLevels(reasoning())).toEqual(["off", "minimal", "low", "medium", "high"]);
	});

	it("offers xhigh and max only when mapped to a string", () => {
		expect(supportedThinkingLevels(reasoning({ xhigh: "xhigh" }))).toEqual([
			"off",
			"minimal",
			"low",
			"medium",
			"high",
			"xhigh",
		]);
		expect(supportedThinkingLevels(reasoning({ max: "max", xhigh: null }))).toEqual([
			"off",
			"minimal",
			"low",
			"medium",
			"high",
			"max",
		]);
	});

	it("hides a level mapped to null", () => {
		expect(supportedThinkingLevels(reasoning({ off: null, minimal: null, medium: "mid" }))).toEqual([
			"low",
			"medium",
			"high",
		]);
	});
});

describe("clampThinkingLevel", () => {
	it("keeps a supported level", () => {
		expect(clampThinkingLevel(reasoning(), "medium")).toBe("medium");
		expect(clampThinkingLevel(reasoning({ max: "max" }), "max")).toBe("max");
	});

	it("moves an unsupported level up to the nearest supported one first", () => {
		expect(clampThinkingLevel(reasoning({ minimal: null }), "minimal")).toBe("low");
		expect(clampThinkingLevel(reasoning({ low: null, medium: null }), "low")).toBe("high");
		expect(clampThinkingLevel(reasoning({ max: "max" }), "xhigh")).toBe("max");
	});

	it("moves down when nothing above is supported", () => {
		expect(clampThinkingLevel(reasoning(), "xhigh")).toBe("high");
		expect(clampThinkingLevel(reasoning(), "max")).toBe("high");
		expect(clampThinkingLevel(reasoning({ high: null }), "max")).toBe("medium");
		expect(clampThinkingLevel(reasoning({ xhigh: "xhigh" }), "max")).toBe("xhigh");
	});

	it("gives off for every level on a non-reasoning model", () => {
		for (const level of ["off", "minimal", "high", "max"]) expect(clampThinkingLevel(plain, level)).toBe("off");
		expect(clampThinkingLevel(undefined, "high")).toBe("off");
	});

	it("moves off up when off is hidden", () => {
		expect(clampThinkingLevel(reasoning({ off: null }), "off")).toBe("minimal");
	});

	it("turns an unknown string into the first supported level", () => {
		expect(clampThinkingLevel(reasoning(), "ultra")).toBe("off");
		expect(clampThinkingLevel(reasoning(), "HIGH")).toBe("off");
		expect(clampThinkingLevel(reasoning(), "")).toBe("off");
		expect(clampThinkingLevel(reasoning({ off: null, minimal: null }), "bogus")).toBe("low");
	});
});

describe("thinking helpers", () => {
	it("recognises the seven levels and nothing else", () => {
		for (const level of ["off", "minimal", "low", "medium", "high", "xhigh", "max"]) {
			expect(isThinkingLevel(level)).toBe(true);
		}
		for (const value of ["High", "none", "", 3, undefined, null]) expect(isThinkingLevel(value)).toBe(false);
	});

	it("maps a level to the model's value, else the level itself", () => {
		expect(mappedThinkingValue({ thinkingLevelMap: { high: "max-effort" } }, "high")).toBe("max-effort");
		expect(mappedThinkingValue({ thinkingLevelMap: { high: null } }, "high")).toBe("high");
		expect(mappedThinkingValue({}, "low")).toBe("low");
	});

	it("uses default budgets unless overridden", () => {
		expect(DEFAULT_THINKING_BUDGETS).toEqual({
			minimal: 1024,
			low: 2048,
			medium: 8192,
			high: 16384,
			xhigh: 16384,
			max: 16384,
		});
		expect(thinkingBudget("medium")).toBe(8192);
		expect(thinkingBudget("medium", { medium: 5000 })).toBe(5000);
		expect(thinkingBudget("low", { medium: 5000 })).toBe(2048);
	});
});
