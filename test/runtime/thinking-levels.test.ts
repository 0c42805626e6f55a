/**
 * Thinking levels follow the model: a level asked for on a model that cannot reason is kept for
 * the next one that can; a reasoning model clamps levels it has no mapping for and cycles them.
 */
import { describe, expect, it } from "vitest";
import { startSession } from "./helpers.js";

describe("thinking levels", () => {
	it("a level asked for on a model that cannot reason comes back with one that can", () => {
		const { session } = startSession();
		expect(session.getState().model).toMatchObject({ provider: "fake", id: "small" });
		session.setThinkingLevel("high");
		expect(session.getState().thinkingLevel).toBe("off");
		session.setModel("fake", "thinker");
		expect(session.getState().thinkingLevel).toBe("high");
		session.setModel("fake", "small");
		expect(session.getState().thinkingLevel).toBe("off");
		session.setModel("fake", "thinker");
		expect(session.getState().thinkingLevel).toBe("high");
	});

	it("a reasoning model takes, clamps and cycles levels", () => {
		const { session } = startSession();
		session.setModel("fake", "thinker");
		expect(session.availableThinkingLevels()).toEqual(["off", "minimal", "low", "medium", "high"]);
		session.setThinkingLevel("high");
		expect(session.getState().thinkingLevel).toBe("high");
		// xhigh and max need an explicit mapping, which this model lacks: the nearest lower level wins.
		session.setThinkingLevel("xhigh");
		expect(session.getState().thinkingLevel).toBe("high");
		expect(session.cycleThinkingLevel()).toBe("off");
		expect(session.cycleThinkingLevel()).toBe("minimal");
		expect(session.getState().thinkingLevel).toBe("minimal");
	});
});
