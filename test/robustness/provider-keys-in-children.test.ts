import { describe, expect, it } from "vitest";
import { startAgent, stderrShows, uniqueToken, useRpcHarness } from "../rpc/helpers.js";
import { textReply, toolReply } from "../support/llm-server.js";
import { descendants, environmentOf } from "../tools/process-helpers.js";

const harness = useRpcHarness();

/**
 * How long a check of absence looks: a process started "soon" after the preload or a command (a
 * shell kept waiting for the next one was started within 50 ms) has appeared by then.
 */
const SETTLE_MS = 300;

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

describe.skipIf(process.platform !== "linux")("provider keys and the processes the agent starts", () => {
	it("no process the agent started holds a provider key, after the idle preload and after commands", async () => {
		const key = uniqueToken("sk-ant-marker-");
		const { agent } = await startAgent(harness.server, {
			// The keys' own providers would be the default models: the test's server answers instead.
			args: ["--model", "mock/mock-model"],
			env: { ANTHROPIC_API_KEY: key, OPENAI_API_KEY: key, ATOMIC_DEBUG_IDLE: "1" },
		});
		await agent.ok({ type: "get_state" });
		await stderrShows(agent, "preload: done");
		const pid = agent.child.pid;
		if (pid === undefined) throw new Error("the agent has no pid");
		const holders = () => descendants(pid).filter((child) => environmentOf(child).includes(key));
		await settle();
		expect(holders()).toEqual([]);

		harness.server.enqueue(toolReply("bash", { command: "env" }), textReply("done"));
		const { start } = await agent.prompt("show the environment");
		const ends = agent.since(start, "tool_execution_end");
		expect(ends).toHaveLength(1);
		expect(JSON.stringify(ends[0])).not.toContain(key);
		const direct = await agent.request({ type: "bash", command: "env; sleep 0.2" });
		expect(direct.success).toBe(true);
		expect(JSON.stringify(direct)).not.toContain(key);
		// Whatever runs after the commands (nothing should wait for the next one) holds no key either.
		await settle();
		expect(holders()).toEqual([]);
	});
});
