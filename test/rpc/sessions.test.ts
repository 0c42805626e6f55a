import { describe, expect, it } from "vitest";
import { textReply, toolReply } from "../support/llm-server.js";
import { testProviders } from "../support/rpc-process.js";
import { readJsonl, startAgent, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

interface Entry {
	type: string;
	id: string;
	parentId: string | null;
	message?: { role: string; content?: unknown };
	name?: string;
}

// How get_tree nests entries and what get_fork_messages lists are checked in process:
// test/runtime/session-queries.test.ts.
describe("session entries", () => {
	it("get_entries lists entries in order and continues after a cursor", async () => {
		const { agent } = await startAgent(harness.server, { sessions: true });
		const empty = await agent.request({ id: "e0", type: "get_entries" });
		expect(empty).toEqual({
			id: "e0",
			type: "response",
			command: "get_entries",
			success: true,
			data: { entries: [], leafId: null },
		});
		harness.server.enqueue(textReply("one"), textReply("two"));
		await agent.prompt("first");
		await agent.prompt("second");
		const { entries, leafId } = (await agent.ok({ type: "get_entries" })) as { entries: Entry[]; leafId: string };
		expect(entries.map((entry) => `${entry.type}:${entry.message?.role}`)).toEqual([
			"message:user",
			"message:assistant",
			"message:user",
			"message:assistant",
		]);
		expect(entries.map((entry) => entry.parentId)).toEqual([null, ...entries.slice(0, -1).map((entry) => entry.id)]);
		expect(leafId).toBe(entries[3]?.id);
		expect(await agent.ok({ type: "get_entries", since: entries[1]?.id })).toEqual({
			entries: entries.slice(2),
			leafId,
		});
		expect(await agent.ok({ type: "get_entries", since: leafId })).toEqual({ entries: [], leafId });
		expect(await agent.request({ id: "e1", type: "get_entries", since: "nope" })).toEqual({
			id: "e1",
			type: "response",
			command: "get_entries",
			success: false,
			error: "Entry not found: nope",
		});
	});
});

describe("session details", () => {
	it("set_session_name rejects a blank name, trims, and persists a session_info entry", async () => {
		const { agent } = await startAgent(harness.server, { sessions: true });
		expect(await agent.request({ id: "blank", type: "set_session_name", name: "   " })).toEqual({
			id: "blank",
			type: "response",
			command: "set_session_name",
			success: false,
			error: "Session name cannot be empty",
		});
		expect(await agent.ok({ type: "get_state" })).not.toHaveProperty("sessionName");
		expect(await agent.request({ id: "name", type: "set_session_name", name: "  my work  " })).toEqual({
			id: "name",
			type: "response",
			command: "set_session_name",
			success: true,
		});
		expect(await agent.ok({ type: "get_state" })).toMatchObject({ sessionName: "my work" });
		await agent.prompt("hello");
		const { sessionFile } = (await agent.ok({ type: "get_state" })) as { sessionFile: string };
		const records = readJsonl(sessionFile);
		expect(records[0]).toMatchObject({ type: "session" });
		expect(records.filter((record) => record.type === "session_info")).toEqual([
			expect.objectContaining({ type: "session_info", name: "my work" }),
		]);
	});

	it("get_session_stats counts messages and sums the scripted usage", async () => {
		const providers = testProviders(harness.server) as Record<string, Record<string, unknown>>;
		const mock = providers.mock as { models: Record<string, unknown>[] };
		const cost = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
		const priced = { mock: { ...mock, models: mock.models.map((model) => ({ ...model, cost })) } };
		const { agent } = await startAgent(harness.server, { sessions: true, providers: priced });
		harness.server.enqueue(
			toolReply("bash", { command: "echo hi" }, { usage: { input: 100, output: 20, cacheRead: 30, cacheWrite: 5 } }),
			textReply("done", { usage: { input: 200, output: 40 } }),
		);
		await agent.prompt("use a tool");
		const { sessionFile, sessionId } = (await agent.ok({ type: "get_state" })) as Record<string, string>;
		const response = await agent.request({ id: "st", type: "get_session_stats" });
		const data = response.data as { cost: number };
		expect(response).toEqual({
			id: "st",
			type: "response",
			command: "get_session_stats",
			success: true,
			data: {
				sessionFile,
				sessionId,
				userMessages: 1,
				assistantMessages: 2,
				toolCalls: 1,
				toolResults: 1,
				totalMessages: 4,
				tokens: { input: 300, output: 60, cacheRead: 30, cacheWrite: 5, total: 395 },
				cost: data.cost,
				contextUsage: { tokens: 240, contextWindow: 200_000, percent: 0.12 },
			},
		});
		expect(data.cost).toBeCloseTo((300 * 3 + 60 * 15 + 30 * 0.3 + 5 * 3.75) / 1_000_000, 12);
	});

	it("get_last_assistant_text is null before a reply and the reply's text after", async () => {
		const { agent } = await startAgent(harness.server);
		expect(await agent.request({ id: "l0", type: "get_last_assistant_text" })).toEqual({
			id: "l0",
			type: "response",
			command: "get_last_assistant_text",
			success: true,
			data: { text: null },
		});
		harness.server.enqueue({
			blocks: [
				{ type: "text", text: "  part one " },
				{ type: "text", text: "part two  " },
			],
		});
		await agent.prompt("hi");
		expect(await agent.ok({ type: "get_last_assistant_text" })).toEqual({ text: "part one part two" });
	});

	it("get_messages returns the conversation", async () => {
		const { agent } = await startAgent(harness.server);
		expect(await agent.request({ id: "m0", type: "get_messages" })).toEqual({
			id: "m0",
			type: "response",
			command: "get_messages",
			success: true,
			data: { messages: [] },
		});
		harness.server.enqueue(textReply("answer", { usage: { input: 7, output: 3 } }));
		await agent.prompt("question");
		const { messages } = (await agent.ok({ type: "get_messages" })) as { messages: unknown[] };
		expect(messages).toEqual([
			{ role: "user", content: [{ type: "text", text: "question" }], timestamp: expect.any(Number) },
			{
				role: "assistant",
				content: [{ type: "text", text: "answer" }],
				api: "anthropic-messages",
				provider: "mock",
				model: "mock-model",
				usage: {
					input: 7,
					output: 3,
					cacheRead: 0,
					cacheWrite: 0,
					totalTokens: 10,
					cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
				},
				stopReason: "stop",
				timestamp: expect.any(Number),
			},
		]);
	});
});
