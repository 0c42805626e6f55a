import { describe, expect, it } from "vitest";
import { serializeRecord } from "../../src/rpc/framing.js";
import { LARGE_MESSAGE_CHARS } from "../../src/session/shared-json.js";
import { textReply } from "../support/llm-server.js";
import { jsonlFiles, readJsonl, startAgent, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

describe("a prompt far larger than any record", () => {
	it("goes out in the seed's shapes, each record byte for byte as JSON.stringify writes it, and is saved whole", async () => {
		const { agent, sessionDir } = await startAgent(harness.server, { sessions: true });
		// Well above the size whose JSON is shared between records; quotes, escapes and non-ASCII included.
		const text = `${'big "prompt" \\ é 😀\n'.repeat(Math.ceil((LARGE_MESSAGE_CHARS * 3) / 20))}\u2028end`;
		harness.server.enqueue(textReply("got it"));
		const { start } = await agent.prompt(text, { id: "huge" });
		const user = { role: "user", content: [{ type: "text", text }], timestamp: expect.any(Number) };
		const records = agent.since(start);
		const messageStart = records.find((record) => record.type === "message_start");
		const messageEnd = records.find((record) => record.type === "message_end");
		const turnEnd = records.find((record) => record.type === "turn_end");
		const agentEnd = records.find((record) => record.type === "agent_end");
		expect(messageStart).toEqual({ type: "message_start", message: user });
		expect(messageEnd).toEqual({ type: "message_end", message: user });
		const reply = { role: "assistant", content: [{ type: "text", text: "got it" }] };
		expect(turnEnd).toMatchObject({ type: "turn_end", message: reply, toolResults: [] });
		expect(agentEnd).toMatchObject({ type: "agent_end", messages: [user, reply] });
		expect(agentEnd?.messages).toEqual([messageStart?.message, expect.objectContaining(reply)]);
		// Every line is exactly what serialising its record at once would give (keys, order, escapes).
		for (const line of agent.rawLines.slice(start)) expect(`${line}\n`).toBe(serializeRecord(JSON.parse(line)));
		const [file] = jsonlFiles(sessionDir);
		const saved = readJsonl(file as string).find((entry) => entry.type === "message");
		expect(saved?.message).toEqual(messageStart?.message);
	});
});
