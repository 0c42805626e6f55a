import { Type } from "typebox";
import { describe, expect, it, vi } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { RetryPolicy } from "../../src/agent/retry.js";
import type { AgentEvent, AgentTool } from "../../src/agent/types.js";
import type { AssistantMessage } from "../../src/llm/types.js";
import { textReply, toolReply } from "../support/llm-server.js";
import { scriptedStream } from "../support/scripted-stream.js";
import { harness, MODEL, user } from "./helpers.js";

const okTool: AgentTool = {
	name: "ok",
	description: "answers ok",
	parameters: Type.Object({}),
	execute: async () => ({ content: [{ type: "text", text: "ok" }] }),
};

function lastAssistant(events: AgentEvent[]): AssistantMessage | undefined {
	const ends = events.flatMap((event) =>
		event.type === "message_end" && event.message.role === "assistant" ? [event.message] : [],
	);
	return ends.at(-1);
}

describe("a run that fails outside the model's replies", () => {
	it("a listener throwing on tool_execution_start still gets every end event, and the call a result", async () => {
		const h = harness([toolReply("ok", {}), textReply("next prompt works")], { tools: [okTool] });
		let thrown = false;
		h.agent.subscribe((event) => {
			if (event.type === "tool_execution_start" && !thrown) {
				thrown = true;
				throw new RangeError("Maximum call stack size exceeded");
			}
		});
		await h.agent.prompt(user("go"));
		expect(h.types()).toEqual([
			"agent_start",
			"turn_start",
			"message_start:user",
			"message_end:user",
			"message_start:assistant",
			"message_end:assistant",
			"tool_execution_start",
			"tool_execution_end",
			"message_start:toolResult",
			"message_end:toolResult",
			"message_start:assistant",
			"message_end:assistant",
			"turn_end",
			"agent_end",
		]);
		const reply = lastAssistant(h.events);
		expect(reply).toMatchObject({
			stopReason: "error",
			errorMessage: "The run stopped on an internal error: Maximum call stack size exceeded",
		});
		// The conversation stays valid for the provider: the call has its result.
		await h.agent.prompt(user("again"));
		const roles = h.stream.calls[1]?.context.messages.map((message) => message.role);
		expect(roles).toEqual(["user", "assistant", "toolResult", "assistant", "user"]);
	});

	it("a hook that throws between turns ends the run with an error reply", async () => {
		const h = harness([toolReply("ok", {}), textReply("unused")], {
			tools: [okTool],
			afterToolBatch: () => {
				throw new Error("compaction exploded");
			},
		});
		await h.agent.prompt(user("go"));
		expect(h.types().slice(-4)).toEqual(["message_start:assistant", "message_end:assistant", "turn_end", "agent_end"]);
		expect(lastAssistant(h.events)?.errorMessage).toBe("The run stopped on an internal error: compaction exploded");
		expect(h.agent.isRunning).toBe(false);
	});

	it("a listener throwing on agent_end is reported, and agent_end is not sent twice", async () => {
		const reported: unknown[] = [];
		const agent = new Agent({
			config: { model: MODEL, thinkingLevel: "off", tools: [], streamFunction: scriptedStream(textReply("hi")) },
			retry: new RetryPolicy({ enabled: false }),
			reportListenerError: (error) => reported.push(error),
		});
		const types: string[] = [];
		agent.subscribe((event) => {
			types.push(event.type);
			if (event.type === "agent_end") throw new Error("listener bug");
		});
		await agent.prompt(user("go"));
		expect(types.filter((type) => type === "agent_end")).toHaveLength(1);
		expect(reported).toEqual([new Error("listener bug")]);
	});
});

describe("queue updates", () => {
	it("a burst of steers costs output linear in its size: the first at once, the rest together", async () => {
		const h = harness([]);
		const sizes = () => h.events.flatMap((event) => (event.type === "queue_update" ? [event.steering.length] : []));
		for (let index = 0; index < 5000; index++) {
			h.agent.queueSteering(user(`steer ${index}`), `steer ${index}`);
			// The first change is reported before queueSteering returns (before the RPC response).
			if (index === 0) expect(sizes()).toEqual([1]);
		}
		expect(sizes()).toEqual([1]);
		await vi.waitUntil(() => sizes().length === 2);
		expect(sizes()).toEqual([1, 5000]);
		// A later turn's first change is again reported at once.
		h.agent.clearQueues();
		expect(sizes()).toEqual([1, 5000, 0]);
	});

	it("a coalesced update goes out before the next event of a run, so the order holds", async () => {
		const h = harness([textReply("one")]);
		const order = () =>
			h.events
				.filter((event) => event.type === "queue_update" || event.type === "agent_start")
				.map((event) =>
					event.type === "queue_update" ? `queue:${event.steering.map((item) => item.text).join(",")}` : event.type,
				);
		h.agent.queueSteering(user("a"), "a");
		h.agent.queueSteering(user("b"), "b");
		expect(order()).toEqual(["queue:a"]);
		// Delivering "a" reports the queue as it is then, before the run's first event.
		await h.agent.continue();
		expect(order().slice(0, 3)).toEqual(["queue:a", "queue:b", "agent_start"]);
	});
});
