/**
 * Pipelining: a thousand commands in one write are answered in order, each with its id, and the
 * ordered lane applies each command before the next one reads the state.
 */
import { describe, expect, it } from "vitest";
import { isResponseTo, startAgent, useRpcHarness } from "../rpc/helpers.js";
import { expectWellFormedOutput, isAlive, writeChunk } from "./helpers.js";

const harness = useRpcHarness();

const COUNT = 1000;

describe("pipelining", () => {
	it(`answers ${COUNT} get_state commands sent in one write in order, each once`, async () => {
		const { agent } = await startAgent(harness.server);
		// Numeric ids half the time: they must come back as numbers.
		const ids = Array.from({ length: COUNT }, (_, index) => (index % 2 === 0 ? `g${index}` : index));
		const start = agent.mark();
		await writeChunk(agent, ids.map((id) => `${JSON.stringify({ id, type: "get_state" })}\n`).join(""));
		await agent.waitFor(isResponseTo(ids.at(-1) as number), { start, timeout: 30_000 });
		const records = agent.since(start);
		expect(records.map((record) => record.id)).toEqual(ids);
		for (const record of records) {
			expect(record).toMatchObject({ type: "response", command: "get_state", success: true });
			expect(record.data).toMatchObject({ isStreaming: false, messageCount: 0 });
		}
		expectWellFormedOutput(agent, start);
		expect(isAlive(agent)).toBe(true);
	});

	it(`applies ${COUNT} interleaved set_session_name and get_state commands in order`, async () => {
		const { agent } = await startAgent(harness.server);
		const commands = Array.from({ length: COUNT }, (_, index) =>
			index % 2 === 0
				? { id: `set-${index}`, type: "set_session_name", name: `name ${index} \u2028😀` }
				: { id: `get-${index}`, type: "get_state" },
		);
		const start = agent.mark();
		await writeChunk(agent, commands.map((command) => `${JSON.stringify(command)}\n`).join(""));
		await agent.waitFor(isResponseTo(`get-${COUNT - 1}`), { start, timeout: 30_000 });
		const records = agent.since(start);
		expect(records.map((record) => record.id)).toEqual(commands.map((command) => command.id));
		records.forEach((record, index) => {
			if (index % 2 === 0) {
				expect(record).toEqual({ id: `set-${index}`, type: "response", command: "set_session_name", success: true });
			} else {
				expect(record).toMatchObject({ id: `get-${index}`, command: "get_state", success: true });
				expect((record.data as { sessionName?: string }).sessionName).toBe(`name ${index - 1} \u2028😀`);
			}
		});
		expectWellFormedOutput(agent, start);
	});
});
