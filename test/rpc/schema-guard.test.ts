import { describe, expect, it } from "vitest";
import { startAgent, stopAgents, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

describe("the end-to-end harness", () => {
	it("checks every record an agent wrote against the RPC schema when it stops the agents", async () => {
		const { agent } = await startAgent(harness.server);
		await agent.ok({ type: "get_state" });
		await stopAgents();

		const second = await startAgent(harness.server);
		await second.agent.ok({ type: "get_state" });
		// As if the agent had written a response the schema does not allow.
		second.agent.records.push({ type: "response", command: "get_state", success: "yes" });
		await expect(stopAgents()).rejects.toThrow(/1 output record\(s\) do not match the RPC schema/);
	});
});
