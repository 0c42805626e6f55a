import { describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import type { RpcAgent, RpcRecord } from "../support/rpc-process.js";
import { anthropicBody, startAgent, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

/** Writes every command in one chunk and resolves with their responses, in the order written. */
async function inOneWrite(
	agent: RpcAgent,
	commands: Record<string, unknown>[],
	timeout = 20_000,
): Promise<RpcRecord[]> {
	const start = agent.mark();
	agent.sendRaw(commands.map((command) => `${JSON.stringify(command)}\n`).join(""));
	const ids = commands.map((command) => command.id);
	for (const id of ids) {
		await agent.waitFor((record) => record.type === "response" && record.id === id, { start, timeout });
	}
	return agent.since(start, "response").filter((record) => ids.includes(record.id));
}

/** A conversation big enough to compact: a 30-line prompt and a second exchange. */
async function compactableConversation(agent: RpcAgent): Promise<void> {
	const lines = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`).join("\n");
	harness.server.enqueue(textReply("ok"), textReply("done", { usage: { input: 1000, output: 10 } }));
	await agent.prompt(lines);
	await agent.prompt("second");
}

function userTexts(body: ReturnType<typeof anthropicBody>): string {
	return JSON.stringify(body.messages.filter((message) => message.role === "user"));
}

describe("commands sent in one write", () => {
	it("answers get_state after new_session, with the new session", async () => {
		const { agent } = await startAgent(harness.server, { sessions: true });
		const before = (await agent.ok({ type: "get_state" })) as { sessionId: string };
		const responses = await inOneWrite(agent, [
			{ id: "n", type: "new_session" },
			{ id: "s", type: "get_state" },
		]);
		expect(responses.map((record) => record.id)).toEqual(["n", "s"]);
		const after = (responses[1]?.data ?? {}) as { sessionId: string };
		expect(after.sessionId).not.toBe(before.sessionId);
	});

	it("holds setters and get_state behind a running compaction, then applies them in order", async () => {
		const { agent } = await startAgent(harness.server, { sessions: true });
		await compactableConversation(agent);
		harness.server.enqueue(textReply("2,10", { headersDelayMs: 400 }));
		const responses = await inOneWrite(agent, [
			{ id: "c", type: "compact" },
			{ id: "m", type: "set_steering_mode", mode: "all" },
			{ id: "n", type: "set_session_name", name: "ordered" },
			{ id: "s", type: "get_state" },
		]);
		expect(responses.map((record) => [record.id, record.success])).toEqual([
			["c", true],
			["m", true],
			["n", true],
			["s", true],
		]);
		const state = responses[3]?.data as { steeringMode: string; sessionName: string; isCompacting: boolean };
		expect(state).toMatchObject({ steeringMode: "all", sessionName: "ordered", isCompacting: false });
	});

	it("lets abort overtake a running compaction", async () => {
		const { agent } = await startAgent(harness.server, { sessions: true });
		await compactableConversation(agent);
		harness.server.enqueue(textReply("2,10", { headersDelayMs: 5000 }));
		const start = agent.mark();
		agent.send({ id: "c", type: "compact" });
		await agent.waitForEvent("compaction_start", () => true, start);
		await inOneWrite(agent, [
			{ id: "s", type: "get_state" },
			{ id: "a", type: "abort" },
		]);
		// get_state is answered while the compaction runs (it only reads), before the abort's response.
		await agent.waitForEvent("response", (record) => record.id === "c", start);
		const responses = agent.since(start, "response");
		expect(responses.map((record) => record.id)).toEqual(["s", "a", "c"]);
		expect(responses[0]).toMatchObject({ data: { isCompacting: true } });
		expect(responses[2]).toMatchObject({ success: false, error: "Compaction cancelled" });
	});

	it("queues steer and follow_up sent after new_session in the new session, and the model sees them", async () => {
		const { agent } = await startAgent(harness.server, { sessions: true });
		const responses = await inOneWrite(agent, [
			{ id: "n", type: "new_session" },
			{ id: "st", type: "steer", message: "steered after replacing" },
			{ id: "f", type: "follow_up", message: "followed up after replacing" },
		]);
		expect(responses.map((record) => [record.id, record.success])).toEqual([
			["n", true],
			["st", true],
			["f", true],
		]);
		expect(await agent.ok({ type: "get_state" })).toMatchObject({ pendingMessageCount: 2 });
		const requestsBefore = harness.server.requests.length;
		await agent.prompt("go");
		const bodies = harness.server.requests.slice(requestsBefore).map(anthropicBody);
		expect(bodies.map(userTexts).join("\n")).toContain("steered after replacing");
		expect(bodies.map(userTexts).join("\n")).toContain("followed up after replacing");
	});

	it("lets later commands run once a bash command has started", async () => {
		const { agent } = await startAgent(harness.server);
		const responses = await inOneWrite(agent, [
			{ id: "b", type: "bash", command: "sleep 1; echo done" },
			{ id: "s", type: "get_state" },
		]);
		expect(responses.map((record) => record.id)).toEqual(["s", "b"]);
		expect(responses[1]?.data).toMatchObject({ output: "done\n" });
	});

	it("answers an invalid record in its place, after the command before it", async () => {
		const { agent } = await startAgent(harness.server, { sessions: true });
		await compactableConversation(agent);
		harness.server.enqueue(textReply("2,10", { headersDelayMs: 300 }));
		const responses = await inOneWrite(agent, [
			{ id: "c", type: "compact" },
			{ id: "bad", type: "set_steering_mode", mode: "sometimes" },
			{ id: "s", type: "get_state" },
		]);
		expect(responses.map((record) => [record.id, record.success])).toEqual([
			["c", true],
			["bad", false],
			["s", true],
		]);
	});
});
