import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import type { ToolResultMessage } from "../../src/llm/types.js";
import { harness, user } from "../agent/helpers.js";
import { textReply, toolReply } from "../support/llm-server.js";
import { runnerHarness } from "./helpers.js";

function toolResults(messages: readonly { role: string }[]): ToolResultMessage[] {
	return messages.filter((message): message is ToolResultMessage => message.role === "toolResult");
}

describe("the runner plugged into the real agent loop", () => {
	it("supplies tools and tool hooks in the shapes AgentLoopConfig expects, and observes the run", async () => {
		const { runner, errors } = runnerHarness();
		const seen: string[] = [];
		// A blocked call never runs, so tool_result does not see it.
		await runner.addExtension("/ext/loop.ts", (atomic) => {
			atomic.registerTool({
				name: "greet",
				description: "greets",
				parameters: Type.Object({ name: Type.String() }),
				execute: async (_id, params) => ({ content: [{ type: "text", text: `hello ${params.name}` }] }),
			});
			atomic.on("tool_call", (event) => {
				if (event.input.name === "mallory") return { block: true, reason: "not her" };
				event.input.name = `${String(event.input.name)}!`;
			});
			atomic.on("tool_result", (event) => ({
				content: [
					{ type: "text", text: `${event.content[0]?.type === "text" ? event.content[0].text : ""} (checked)` },
				],
			}));
			atomic.on("turn_end", (event) => {
				seen.push(`turn_end ${event.turnIndex}`);
			});
			atomic.on("agent_end", () => {
				seen.push("agent_end");
			});
		});
		const { agent } = harness(
			[toolReply("greet", { name: "bob" }), toolReply("greet", { name: "mallory" }), textReply("done")],
			{ tools: runner.tools(), beforeToolCall: runner.beforeToolCall, afterToolCall: runner.afterToolCall },
		);
		agent.subscribe((event) => runner.emit(event));

		await agent.prompt(user("go"));

		const results = toolResults(agent.messages);
		expect(results.map((result) => [result.content, result.isError])).toEqual([
			[[{ type: "text", text: "hello bob! (checked)" }], false],
			[[{ type: "text", text: "not her" }], true],
		]);
		expect(seen).toEqual(["turn_end 0", "turn_end 1", "turn_end 2", "agent_end"]);
		expect(errors).toEqual([]);
	});
});
