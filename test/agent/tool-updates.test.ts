import { describe, expect, it } from "vitest";
import type { AgentEvent, AgentTool } from "../../src/agent/types.js";
import { Type } from "../../src/llm/schema-builders.js";
import { textReply, toolReply } from "../support/llm-server.js";
import { harness, user } from "./helpers.js";

/** A tool that reports `texts` as progress, one after the other, then returns "done". */
function reportingTool(texts: string[]): AgentTool & { reported: Promise<void> } {
	let reported: () => void = () => undefined;
	return {
		name: "report",
		description: "reports progress",
		parameters: Type.Object({}),
		reported: new Promise((resolve) => {
			reported = resolve;
		}),
		async execute(_id, _args, _signal, onUpdate) {
			for (const text of texts) onUpdate({ content: [{ type: "text", text }], details: {} });
			reported();
			return { content: [{ type: "text", text: "done" }], details: {} };
		},
	};
}

function updateText(event: AgentEvent): string | undefined {
	if (event.type !== "tool_execution_update") return undefined;
	const block = event.partialResult.content[0];
	return block?.type === "text" ? block.text : undefined;
}

describe("tool progress updates", () => {
	it("are all delivered while the listeners take them at once", async () => {
		const tool = reportingTool(["a", "ab", "abc"]);
		const h = harness([toolReply("report", {}), textReply("ok")], { tools: [tool] });
		await h.agent.prompt(user("go"));
		expect(h.events.flatMap((event) => updateText(event) ?? [])).toEqual(["a", "ab", "abc"]);
	});

	it("are coalesced while a listener has not taken one: the newest goes out, before the call ends", async () => {
		const tool = reportingTool(["1", "12", "123", "1234"]);
		const h = harness([toolReply("report", {}), textReply("ok")], { tools: [tool] });
		let open: () => void = () => undefined;
		const slowReader = new Promise<void>((resolve) => {
			open = resolve;
		});
		let updatesSeen = 0;
		h.agent.subscribe((event) => {
			if (event.type !== "tool_execution_update") return undefined;
			updatesSeen++;
			// The first update is "not taken" until the reader catches up.
			return updatesSeen === 1 ? slowReader : undefined;
		});
		const run = h.agent.prompt(user("go"));
		await tool.reported;
		expect(h.events.flatMap((event) => updateText(event) ?? [])).toEqual(["1"]);
		expect(h.types()).not.toContain("tool_execution_end");
		open();
		await run;
		const updates = h.events.flatMap((event) => updateText(event) ?? []);
		expect(updates).toEqual(["1", "1234"]);
		const types = h.events.map((event) => event.type);
		expect(types.lastIndexOf("tool_execution_update")).toBeLessThan(types.indexOf("tool_execution_end"));
	});

	it("fail the run when a listener rejects one, like any other event", async () => {
		const tool = reportingTool(["1", "12"]);
		const h = harness([toolReply("report", {}), textReply("never sent")], { tools: [tool] });
		h.agent.subscribe((event) =>
			event.type === "tool_execution_update" ? Promise.reject(new Error("reader gone")) : undefined,
		);
		await h.agent.prompt(user("go"));
		const last = h.events.filter((event) => event.type === "message_end").at(-1);
		expect(last?.type === "message_end" && last.message.role === "assistant" && last.message.errorMessage).toContain(
			"reader gone",
		);
		expect(h.types().slice(-2)).toEqual(["turn_end", "agent_end"]);
	});
});
