import { describe, expect, it } from "vitest";
import type { RpcAgent } from "../support/rpc-process.js";
import { anthropicBody, isResponseTo, startAgent, useRpcHarness, useSharedAgent } from "./helpers.js";

const harness = useRpcHarness();

/** Writes one chunk and resolves once it has been handed to the pipe. */
function writeChunk(agent: RpcAgent, chunk: Buffer): Promise<void> {
	return new Promise((resolve, reject) => {
		agent.child.stdin.write(chunk, (error) => (error ? reject(error) : resolve()));
	});
}

async function sessionName(agent: RpcAgent): Promise<unknown> {
	const state = (await agent.ok({ type: "get_state" })) as { sessionName?: string };
	return state.sessionName;
}

describe("record framing", () => {
	// Each test sets the session name it reads and sends nothing else that stays: one process serves them.
	const shared = useSharedAgent(harness);

	it("accepts CRLF line endings", async () => {
		const { agent } = shared;
		const start = agent.mark();
		agent.sendRaw('{"id":"c1","type":"set_session_name","name":"crlf"}\r\n');
		expect(await agent.waitFor(isResponseTo("c1"), { start })).toEqual({
			id: "c1",
			type: "response",
			command: "set_session_name",
			success: true,
		});
		agent.sendRaw('{"id":"c2","type":"get_state"}\r\n');
		const state = await agent.waitFor(isResponseTo("c2"), { start });
		expect((state.data as { sessionName: string }).sessionName).toBe("crlf");
		expect(agent.since(start)).toHaveLength(2);
	});

	// get_state runs in order with the commands before it (unless a long command occupies the lane).
	it("answers a pipelined get_state after the change sent before it", async () => {
		const { agent } = shared;
		const start = agent.mark();
		agent.sendRaw('{"id":"w","type":"set_session_name","name":"written"}\n{"id":"r","type":"get_state"}\n');
		const state = await agent.waitFor(isResponseTo("r"), { start });
		await agent.waitFor(isResponseTo("w"), { start });
		expect((state.data as { sessionName?: string }).sessionName).toBe("written");
	});

	it("reassembles a command split across writes inside a multi-byte character", async () => {
		const { agent } = shared;
		const name = "héllo→✓😀";
		const bytes = Buffer.from(`${JSON.stringify({ id: "s1", type: "set_session_name", name })}\n`, "utf8");
		// Split inside "→" (3 bytes) and inside "😀" (4 bytes).
		const arrow = bytes.indexOf(Buffer.from("→")) + 1;
		const emoji = bytes.indexOf(Buffer.from("😀")) + 2;
		const start = agent.mark();
		await writeChunk(agent, bytes.subarray(0, arrow));
		await writeChunk(agent, bytes.subarray(arrow, emoji));
		await writeChunk(agent, bytes.subarray(emoji));
		await agent.waitFor(isResponseTo("s1"), { start });
		expect(await sessionName(agent)).toBe(name);
		expect(agent.since(start, "response")).toHaveLength(2);
	});

	it("round-trips U+2028 and U+2029, escaping them on the wire", async () => {
		const { agent } = shared;
		const name = "a\u2028b\u2029c";
		await agent.ok({ type: "set_session_name", name });
		const response = await agent.request({ id: "sep", type: "get_state" });
		expect((response.data as { sessionName: string }).sessionName).toBe(name);
		const raw = agent.rawLines[agent.records.indexOf(response)] as string;
		expect(raw).toContain('"sessionName":"a\\u2028b\\u2029c"');
		expect(raw).not.toMatch(/[\u2028\u2029]/);
		expect(JSON.parse(raw)).toEqual(response);
	});

	it("answers invalid UTF-8 with exactly one parse error and keeps running", async () => {
		const { agent } = shared;
		const start = agent.mark();
		agent.sendRaw(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]));
		const response = await agent.request({ id: "after", type: "get_state" });
		expect(response.success).toBe(true);
		expect(agent.since(start)).toEqual([
			{ type: "response", command: "parse", success: false, error: "Failed to parse command: invalid UTF-8" },
			response,
		]);
	});

	it("carries a 10 MiB record in both directions", async () => {
		const { agent } = shared;
		const name = `${"x".repeat(10 * 1024 * 1024)}é✓\u2028end`;
		const set = await agent.request({ id: "big", type: "set_session_name", name }, 30_000);
		expect(set).toEqual({ id: "big", type: "response", command: "set_session_name", success: true });
		const state = await agent.request({ id: "big-state", type: "get_state" }, 30_000);
		const received = (state.data as { sessionName: string }).sessionName;
		expect(received.length).toBe(name.length);
		expect(received === name).toBe(true);
	});
});

describe("a large prompt", () => {
	it("carries a 10 MiB prompt to the model intact", async () => {
		const { agent } = await startAgent(harness.server);
		const message = `${"y".repeat(10 * 1024 * 1024)}✓\u2028end`;
		await agent.prompt(message, { id: "big-prompt" }, 60_000);
		const [first] = anthropicBody(harness.server.requests[0]).messages;
		const content = first?.content as { type: string; text: string }[];
		expect(content[0]?.text.length).toBe(message.length);
		expect(content[0]?.text === message).toBe(true);
	});
});
