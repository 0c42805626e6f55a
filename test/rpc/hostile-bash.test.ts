import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textReply, toolReply } from "../support/llm-server.js";
import { expectExitOnEof, expectResponsive } from "../support/responsive.js";
import { announceWhenRunning, livingProcesses, waitUntilGone } from "../tools/process-helpers.js";
import { startAgent, useRpcHarness, waitForFileCommand } from "./helpers.js";

const harness = useRpcHarness();

describe("bash commands that leave processes behind", () => {
	it("RPC bash returns when its shell exits; the background child lives until the process exits", async () => {
		const { agent } = await startAgent(harness.server);
		const data = await agent.ok({ type: "bash", command: `sleep 30.301 & ${announceWhenRunning("30.301")}` });
		expect(data).toEqual({ output: "started\n", exitCode: 0, cancelled: false, truncated: false });
		expect(livingProcesses(["sleep", "30.301"])).toHaveLength(1);
		await expectResponsive(agent);
		await expectExitOnEof(agent);
		await waitUntilGone(["sleep", "30.301"]);
	});

	it("RPC user_bash returns when its shell exits, also when a setsid child holds its pipes", async () => {
		const { agent } = await startAgent(harness.server);
		const command = `setsid sleep 30.306 & ${announceWhenRunning("30.306")}`;
		const data = await agent.ok({ type: "user_bash", command });
		expect(data).toMatchObject({ output: "started\n", exitCode: 0, cancelled: false });
		expect(livingProcesses(["sleep", "30.306"])).toHaveLength(1);
		await expectResponsive(agent);
		await expectExitOnEof(agent);
		await waitUntilGone(["sleep", "30.306"]);
	});

	it("the bash tool returns when its shell exits, also when a setsid child holds its output", async () => {
		const { agent } = await startAgent(harness.server);
		const command = `setsid sleep 30.302 & ${announceWhenRunning("30.302")}`;
		harness.server.enqueue(toolReply("bash", { command }), textReply("done"));
		const { start } = await agent.prompt("start a server");
		const end = await agent.waitForEvent("tool_execution_end", () => true, start);
		expect(end).toMatchObject({ toolName: "bash", isError: false, result: { content: [{ text: "started" }] } });
		expect(livingProcesses(["sleep", "30.302"])).toHaveLength(1);
		await expectResponsive(agent);
		await expectExitOnEof(agent);
		await waitUntilGone(["sleep", "30.302"]);
	});

	it("abort reaches a setsid descendant and is answered without waiting for it", async () => {
		const { agent } = await startAgent(harness.server);
		const command = `setsid sleep 30.303 & ${announceWhenRunning("30.303")}; sleep 30.304`;
		harness.server.enqueue(toolReply("bash", { command }), textReply("unused"));
		const start = agent.mark();
		await agent.ok({ type: "prompt", message: "run" });
		await agent.waitForEvent("tool_execution_update", (record) => JSON.stringify(record).includes("started"), start);
		await expectResponsive(agent);
		await agent.ok({ type: "abort" });
		expect(await agent.waitForEvent("tool_execution_end", () => true, start)).toMatchObject({ isError: true });
		await waitUntilGone(["sleep", "30.303"]);
		await waitUntilGone(["sleep", "30.304"]);
		await expectExitOnEof(agent);
	});

	it("abort_bash reaches a setsid descendant of an RPC bash command", async () => {
		const { agent } = await startAgent(harness.server);
		const start = agent.mark();
		agent.send({ id: "long", type: "bash", command: `setsid sleep 30.305 & ${announceWhenRunning("30.305")}; wait` });
		await agent.waitForEvent("bash_execution_update", (record) => record.id === "long", start);
		await expectResponsive(agent);
		await agent.ok({ type: "abort_bash", requestId: "long" });
		const response = await agent.waitFor((record) => record.type === "response" && record.id === "long", { start });
		expect(response).toMatchObject({ success: true, data: { cancelled: true } });
		await waitUntilGone(["sleep", "30.305"]);
		await expectExitOnEof(agent);
	});

	it("a bash tool timeout beyond the longest timer does not kill the command at once", async () => {
		const { agent } = await startAgent(harness.server);
		// 30 million seconds: about a year, far past Node's 24.8-day timer limit.
		const call = { command: `sleep 0.5; echo finished`, timeout: 30_000_000 };
		harness.server.enqueue(toolReply("bash", call), textReply("done"));
		const start = agent.mark();
		await agent.ok({ type: "prompt", message: "run" });
		await agent.waitForEvent("tool_execution_start", () => true, start);
		await expectResponsive(agent);
		const end = await agent.waitForEvent("tool_execution_end", () => true, start);
		expect(end).toMatchObject({ isError: false, result: { content: [{ text: "finished" }] } });
		await expectExitOnEof(agent);
	});

	it("abort ends the background processes of the run it aborts, not those of earlier runs", async () => {
		const { agent, dirs } = await startAgent(harness.server);
		harness.server.enqueue(
			toolReply("bash", { command: `sleep 30.601 & ${announceWhenRunning("30.601")}` }),
			textReply("one"),
		);
		await agent.prompt("start a server");
		expect(livingProcesses(["sleep", "30.601"])).toHaveLength(1);

		const gate = join(dirs.root, "never");
		harness.server.enqueue(
			toolReply("bash", { command: `sleep 30.602 & ${announceWhenRunning("30.602")}` }),
			toolReply("bash", { command: waitForFileCommand(gate) }),
			textReply("unused"),
		);
		const start = agent.mark();
		await agent.ok({ type: "prompt", message: "start another, then wait" });
		await agent.waitForEvent("tool_execution_start", (record) => JSON.stringify(record.args).includes(gate), start);
		expect(livingProcesses(["sleep", "30.602"])).toHaveLength(1);
		await agent.ok({ type: "abort" });
		await agent.waitForEvent("agent_end", () => true, start);
		await waitUntilGone(["sleep", "30.602"]);
		expect(livingProcesses(["sleep", "30.601"])).toHaveLength(1);
		await expectExitOnEof(agent);
		await waitUntilGone(["sleep", "30.601"]);
	});
});
