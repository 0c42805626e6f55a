import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textReply, toolReply } from "../support/llm-server.js";
import { expectExitOnEof, expectResponsive } from "../support/responsive.js";
import { startAgent, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

/** 2^34 ways to split 34 a's: hours of backtracking on the main thread, were it run there. */
const catastrophicGrep = { pattern: "(a+)+$" };

function writeHostileFile(work: string): void {
	writeFileSync(join(work, "hostile.txt"), `${"a".repeat(34)}!\n`);
}

describe("a catastrophic grep pattern", () => {
	it("leaves the process responsive, and abort stops the search with a tool error", async () => {
		const { agent } = await startAgent(harness.server, { prepare: (dirs) => writeHostileFile(dirs.work) });
		harness.server.enqueue(toolReply("grep", catastrophicGrep), textReply("after the abort"));
		const start = agent.mark();
		await agent.ok({ type: "prompt", message: "search" });
		await agent.waitForEvent("tool_execution_start", () => true, start);
		await expectResponsive(agent);
		await expectResponsive(agent);
		await agent.ok({ type: "abort" });
		const end = await agent.waitForEvent("tool_execution_end", () => true, start);
		expect(end).toMatchObject({ toolName: "grep", isError: true });
		await agent.waitForEvent("agent_end", () => true, start);
		await expectResponsive(agent);
		await expectExitOnEof(agent);
	});

	it("does not hold up exit on stdin EOF while the search runs", async () => {
		const { agent } = await startAgent(harness.server, { prepare: (dirs) => writeHostileFile(dirs.work) });
		harness.server.enqueue(toolReply("grep", catastrophicGrep), textReply("unused"));
		const start = agent.mark();
		await agent.ok({ type: "prompt", message: "search" });
		await agent.waitForEvent("tool_execution_start", () => true, start);
		await expectResponsive(agent);
		await expectExitOnEof(agent);
	});

	it("a hostile find glob leaves the process responsive too", async () => {
		const { agent } = await startAgent(harness.server, {
			prepare: (dirs) => writeFileSync(join(dirs.work, `${"a".repeat(40)}.txt`), ""),
		});
		harness.server.enqueue(toolReply("find", { pattern: `${"*a".repeat(20)}*b` }), textReply("unused"));
		const start = agent.mark();
		await agent.ok({ type: "prompt", message: "find" });
		await agent.waitForEvent("tool_execution_start", () => true, start);
		await expectResponsive(agent);
		await agent.ok({ type: "abort" });
		expect(await agent.waitForEvent("tool_execution_end", () => true, start)).toMatchObject({ isError: true });
		await expectExitOnEof(agent);
	});
});
