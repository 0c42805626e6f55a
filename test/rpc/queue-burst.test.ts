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

		// One update per turn of the event loop, not per command: how many turns the burst takes
		// depends on how the machine hands over stdin (a loaded one hands it in pieces of a few KB:
		// a CI run saw 101 turns), so the bound is a tenth of the commands. Each lists the queue so
		// far, so together they stay within that many times the last one; an update per command
		// would be half the burst times it.
		const updates = agent.rawLines.slice(start).filter((line) => line.startsWith('{"type":"queue_update"'));
		const last = agent.since(start, "queue_update").at(-1);
		expect(last?.steering).toHaveLength(BURST);
		const maxUpdates = BURST / 10;
		expect(updates.length).toBeLessThan(maxUpdates);
		const updateBytes = updates.reduce((total, line) => total + line.length, 0);
		expect(updateBytes).toBeLessThan(maxUpdates * (updates.at(-1)?.length ?? 0));
		expect(await agent.ok({ type: "get_state" })).toMatchObject({ pendingMessageCount: BURST });
		await expectExitOnEof(agent);
	});
});
