import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AssistantMessage, ToolResultMessage } from "../../src/llm/types.js";
import { createBashTool } from "../../src/tools/bash.js";
import { textReply, toolReply } from "../support/llm-server.js";
import { announceWhenRunning, livingProcesses } from "../tools/process-helpers.js";
import { harness, user } from "./helpers.js";

describe("abort during a running bash tool", () => {
	const dirs: string[] = [];
	afterEach(() => {
		for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
	});

	it("kills the command's whole process tree and ends the run with an aborted reply", async () => {
		const cwd = mkdtempSync(join(tmpdir(), "atomic-abort-"));
		dirs.push(cwd);
		const duration = `30.${process.pid}${Date.now() % 1000}`;
		const command = `sleep ${duration} & sleep ${duration} & ${announceWhenRunning(duration)}; wait`;
		const h = harness([toolReply("bash", { command }), textReply("never sent")], { tools: [createBashTool({ cwd })] });
		const controller = new AbortController();
		const run = h.agent.prompt(user("start the sleepers"), controller.signal);
		await h.waitFor(
			(event) =>
				event.type === "tool_execution_update" &&
				event.partialResult.content.some((block) => block.type === "text" && block.text.includes("started")),
		);
		expect(livingProcesses(["sleep", duration])).toHaveLength(2);
		controller.abort();
		await run;
		expect(livingProcesses(["sleep", duration])).toEqual([]);
		const result = h.events.find((event) => event.type === "message_end" && event.message.role === "toolResult");
		expect(result?.type === "message_end" && (result.message as ToolResultMessage).isError).toBe(true);
		const replies = h.events.flatMap((event) =>
			event.type === "message_end" && event.message.role === "assistant"
				? [(event.message as AssistantMessage).stopReason]
				: [],
		);
		expect(replies).toEqual(["toolUse", "aborted"]);
		expect(h.types().slice(-2)).toEqual(["turn_end", "agent_end"]);
	});
});
