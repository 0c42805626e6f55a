import { describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import type { RpcRecord } from "../support/rpc-process.js";
import { conversationRequests, deferred, scriptServer, threeTurns, userText } from "./compaction-helpers.js";
import { startAgent, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

// Commands stay in arrival order, but `compact` holds the order only until it has started: commands
// that read, and prompts (queued), are answered while the planner works; commands that change state
// wait for it to end.

describe("commands during a manual compaction", () => {
	it("reads are answered at once with isCompacting: true, a prompt is queued, a change waits", async () => {
		const { agent } = await startAgent(harness.server, { sessions: true });
		const arrived = deferred();
		const release = deferred();
		const script = scriptServer(harness.server, () => {
			arrived.resolve();
			return textReply("1,10\n", { holdUntil: release.promise });
		});
		await threeTurns(agent, script);

		const compacted = agent.request({ id: "compact", type: "compact" });
		await arrived.promise;
		// The planner's request is held: everything below is answered, or not, while it is.
		expect(await agent.ok({ type: "get_state" })).toMatchObject({ isCompacting: true, isStreaming: false });
		expect(await agent.ok({ type: "get_messages" })).toMatchObject({ messages: expect.any(Array) });
		expect(await agent.ok({ type: "get_session_stats" })).toMatchObject({ userMessages: 3 });
		script.conversation.push(textReply("answered after the compaction"));
		const prompt = await agent.request({ id: "p", type: "prompt", message: "fourth" });
		expect(prompt).toMatchObject({ success: true, data: { disposition: "queued" } });

		// A change waits for the compaction; a read behind it waits for the change (arrival order).
		const changed = agent.request({ id: "level", type: "set_thinking_level", level: "off" });
		const readAfter = agent.request({ id: "after", type: "get_state" });
		const answeredIds = () =>
			agent.records.filter((record) => record.type === "response").map((record: RpcRecord) => record.id);
		expect(answeredIds()).not.toContain("level");
		expect(answeredIds()).not.toContain("after");
		expect(answeredIds()).not.toContain("compact");

		const released = agent.mark();
		release.resolve();
		expect((await compacted).success).toBe(true);
		expect((await changed).success).toBe(true);
		expect(((await readAfter).data as { isCompacting: boolean }).isCompacting).toBe(false);
		const order = answeredIds();
		expect(order.indexOf("compact")).toBeLessThan(order.indexOf("level"));
		expect(order.indexOf("level")).toBeLessThan(order.indexOf("after"));

		// The queued prompt runs on the compacted conversation once the compaction is done.
		await agent.waitForEvent("agent_settled", () => true, released);
		const last = conversationRequests(harness.server).at(-1);
		if (!last) throw new Error("no conversation request after the compaction");
		expect(userText(last)).toContain("fourth");
		expect(await agent.ok({ type: "get_last_assistant_text" })).toEqual({ text: "answered after the compaction" });
	});

	it("a prompt queued during a compaction that is aborted stays queued for the next prompt", async () => {
		const { agent } = await startAgent(harness.server, { sessions: true });
		const arrived = deferred();
		const script = scriptServer(harness.server, () => {
			arrived.resolve();
			return textReply("1,10\n", { holdUntil: new Promise(() => undefined) });
		});
		await threeTurns(agent, script);
		const compacted = agent.request({ id: "compact", type: "compact" });
		await arrived.promise;
		expect(await agent.request({ type: "prompt", message: "waiting" })).toMatchObject({
			data: { disposition: "queued" },
		});
		await agent.ok({ type: "abort" });
		expect(await compacted).toMatchObject({ success: false, error: "Compaction cancelled" });
		expect(await agent.ok({ type: "get_state" })).toMatchObject({ isStreaming: false, pendingMessageCount: 1 });
	});
});
