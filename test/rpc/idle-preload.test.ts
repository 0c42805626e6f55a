import { describe, expect, it } from "vitest";
import { textReply, toolReply } from "../support/llm-server.js";
import { startAgent, stderrShows, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

/** With ATOMIC_DEBUG_IDLE=1 the agent reports each preload step on stderr. */
const DEBUG = { ATOMIC_DEBUG_IDLE: "1" };

function enqueueToolLoop(): void {
	harness.server.enqueue(toolReply("bash", { command: "echo hi" }), textReply("done"));
}

describe("loading ahead while idle", () => {
	it("loads the provider SDK, connects to the model's server, loads the validators and the diff library once idle", async () => {
		const { agent } = await startAgent(harness.server, { env: DEBUG });
		await agent.ok({ type: "get_state" });
		await stderrShows(agent, "preload: done");
		const lines = agent.stderr.split("\n").filter((line) => line.startsWith("preload: "));
		expect(lines.map((line) => line.replace(/ \(.*\)$/, ""))).toEqual([
			"preload: provider:anthropic-messages loaded",
			"preload: http-client loaded",
			`preload: connect:${harness.server.origin} loaded`,
			"preload: argument-validator loaded",
			"preload: search:worker loaded",
			"preload: search:warm-up:1 loaded",
			"preload: search:warm-up:2 loaded",
			"preload: search:warm-up:3 loaded",
			"preload: search:warm-up:4 loaded",
			"preload: search:warm-up:5 loaded",
			"preload: search:warm-up:6 loaded",
			"preload: search:warm-up:7 loaded",
			"preload: search:warm-up:8 loaded",
			"preload: search:warm-up:9 loaded",
			"preload: search:warm-up:10 loaded",
			"preload: search:warm-up:11 loaded",
			"preload: search:warm-up:12 loaded",
			"preload: edit:diff loaded",
			"preload: command-validator loaded",
			"preload: done",
		]);
		enqueueToolLoop();
		const { start } = await agent.prompt("run it");
		expect(agent.since(start, "tool_execution_end")).toHaveLength(1);
		expect(agent.since(start, "agent_end")).toHaveLength(1);
	});

	it("answers a command that arrives while it loads, and finishes loading afterwards", async () => {
		const { agent } = await startAgent(harness.server, { env: DEBUG });
		await agent.ok({ type: "get_state" });
		// The first step has begun or ended: the next commands arrive in the middle of the preload.
		await stderrShows(agent, "preload: provider:");
		enqueueToolLoop();
		const state = agent.request({ type: "get_state" });
		const { start } = await agent.prompt("run it");
		expect((await state).success).toBe(true);
		expect(agent.since(start, "tool_execution_end")).toHaveLength(1);
		await stderrShows(agent, "preload: command-validator loaded");
		expect(agent.stderr).not.toContain("failed");
	});

	it("does not run before the first command of a client that writes at once", async () => {
		const { agent } = await startAgent(harness.server, { env: DEBUG, awaitReady: false });
		enqueueToolLoop();
		const start = agent.mark();
		const response = await agent.request({ type: "prompt", message: "run it" });
		expect(response.success).toBe(true);
		// Start-up loaded nothing ahead, and no step starts while the prompt runs.
		expect(agent.stderr).not.toContain("preload: ");
		await agent.waitForEvent("agent_settled", () => true, start);
		expect(agent.since(start, "tool_execution_end")).toHaveLength(1);
	});

	it("is off with settings.json idlePreload: false", async () => {
		const { agent } = await startAgent(harness.server, { env: DEBUG, settings: { idlePreload: false } });
		await stderrShows(agent, "preload: off");
		enqueueToolLoop();
		const { start } = await agent.prompt("run it");
		expect(agent.since(start, "tool_execution_end")).toHaveLength(1);
		expect(agent.stderr).not.toContain("preload: provider:");
	});

	it("gives back memory once idle after a prompt, and carries on", async () => {
		const { agent } = await startAgent(harness.server, { env: DEBUG });
		enqueueToolLoop();
		await agent.prompt("run it");
		// After 5 s without input, whether there was enough to collect or not.
		await stderrShows(agent, "idle: release-memory ");
		expect(agent.stderr).toMatch(/idle: release-memory (collected|skipped)\n/);
		enqueueToolLoop();
		const { start } = await agent.prompt("again");
		expect(agent.since(start, "tool_execution_end")).toHaveLength(1);
	});
});
