import { describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import { startAgent, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

// A fresh process loads its provider SDK after the first prompt is accepted; an abort during that
// load (or at any moment around it) must end the run and be answered.
describe("abort right after a first prompt was accepted", () => {
	for (const delayMs of [0, 20, 100]) {
		it(`is answered after ${delayMs} ms, with one agent_end before the response`, async () => {
			harness.server.enqueue(textReply("never finished", { fault: "stall", faultAfterFrames: 1 }));
			const { agent } = await startAgent(harness.server);
			await agent.ok({ type: "prompt", message: "hi" });
			await new Promise((resolve) => setTimeout(resolve, delayMs));
			const start = agent.mark();
			await agent.ok({ type: "abort" }, 10_000);
			expect(agent.records.filter((record) => record.type === "agent_end")).toHaveLength(1);
			const types = agent.records.slice(start).map((record) => record.type);
			expect(types).toContain("agent_end");
			expect(types.indexOf("agent_end")).toBeLessThan(types.indexOf("response"));
			expect(await agent.ok({ type: "get_state" })).toMatchObject({ isStreaming: false });
		});
	}
});
