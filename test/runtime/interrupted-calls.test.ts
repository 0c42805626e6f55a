import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../src/agent/messages.js";
import type { ToolResultMessage } from "../../src/llm/types.js";
import { interruptedCalls } from "../../src/runtime/runs/interrupted-calls.js";
import { repairInterruptedToolCalls } from "../../src/session/index.js";
import { assistant, call, user } from "../session/helpers.js";

function result(id: string, text = "done"): ToolResultMessage {
	return {
		role: "toolResult",
		toolCallId: id,
		toolName: "read",
		content: [{ type: "text", text }],
		isError: false,
		timestamp: 3,
	};
}

describe("interruptedCalls", () => {
	it("finds the calls of the last reply without a result of their own, and drops their stand-ins", () => {
		const reply = assistant("", { calls: [call("a"), call("b"), call("c")] });
		// As a reopened session holds it: b has a real result, a and c stand-ins.
		const messages: AgentMessage[] = repairInterruptedToolCalls([user("go"), reply, result("b")]);
		expect(messages).toHaveLength(5);
		const found = interruptedCalls(messages);
		expect(found?.found.calls.map((block) => block.id)).toEqual(["a", "c"]);
		expect(found?.found.assistant).toBe(reply);
		found?.take();
		expect(messages.map((message) => (message.role === "toolResult" ? message.toolCallId : message.role))).toEqual([
			"user",
			"assistant",
			"b",
		]);
	});

	it("finds nothing when every call has a result, the last reply used no tools, or a later message follows", () => {
		const reply = assistant("", { calls: [call("a")] });
		expect(interruptedCalls([user("go"), reply, result("a")])).toBeUndefined();
		expect(interruptedCalls([user("go"), assistant("plain")])).toBeUndefined();
		expect(interruptedCalls(repairInterruptedToolCalls([user("go"), reply, user("later")]))).toBeUndefined();
		expect(interruptedCalls([])).toBeUndefined();
	});
});
