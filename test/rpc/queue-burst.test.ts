import { describe, expect, it } from "vitest";
import { expectExitOnEof, expectResponsive } from "../support/responsive.js";
import { startAgent, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

const BURST = 5000;

describe("a burst of steer commands", () => {
	it("costs output linear in its size, and the process stays responsive", async () => {
		const { agent } = await startAgent(harness.server);
		const start = agent.mark();
		const lines = Array.from({ length: BURST }, (_, index) =>
			JSON.stringify({ id: `s${index}`, type: "steer", message: `steer number ${index}` }),
		);
		agent.sendRaw(`${lines.join("\n")}\n`);
		await agent.waitFor((record) => record.type === "response" && record.id === `s${BURST - 1}`, { timeout: 60_000 });
		await expectResponsive(agent);
		const responses = agent.since(start, "response").filter((record) => String(record.id).startsWith("s"));
		expect(responses).toHaveLength(BURST);
		expect(responses.every((record) => record.success === true)).toBe(true);

		// The last update lists the whole queue; all of them together stay within a few times its size.
		const updates = agent.rawLines.slice(start).filter((line) => line.startsWith('{"type":"queue_update"'));
		const last = agent.since(start, "queue_update").at(-1);
		expect(last?.steering).toHaveLength(BURST);
		const updateBytes = updates.reduce((total, line) => total + line.length, 0);
		expect(updateBytes).toBeLessThan(20 * (updates.at(-1)?.length ?? 0));
		// Quadratic output would be thousands of times the last update.
		expect(updates.length).toBeLessThan(BURST / 100);
		expect(await agent.ok({ type: "get_state" })).toMatchObject({ pendingMessageCount: BURST });
		await expectExitOnEof(agent);
	});
});
