import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/rpc/protocol/commands.js";
import type { RpcAgent, RpcRecord } from "../support/rpc-process.js";
import { indexOf, isResponseTo, responsesWithId, startAgent, useRpcHarness, useSharedAgent } from "./helpers.js";

const harness = useRpcHarness();
// Refused input and reads change nothing later tests see: one process answers those tests.
const shared = useSharedAgent(harness);

const PACKAGE_VERSION = (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version;

/** Every command type the protocol defines; a new command must be added here and tested. */
const ALL_COMMANDS = [
	"prompt",
	"steer",
	"follow_up",
	"abort",
	"new_session",
	"get_state",
	"get_messages",
	"set_model",
	"cycle_model",
	"get_available_models",
	"logout_provider",
	"set_thinking_level",
	"cycle_thinking_level",
	"get_available_thinking_levels",
	"set_steering_mode",
	"set_follow_up_mode",
	"compact",
	"abort_compaction",
	"set_auto_compaction",
	"set_auto_retry",
	"abort_retry",
	"bash",
	"abort_bash",
	"get_session_stats",
	"export_html",
	"switch_session",
	"fork",
	"clone",
	"get_fork_messages",
	"get_entries",
	"get_tree",
	"get_last_assistant_text",
	"set_session_name",
	"get_commands",
	"clear_queue",
	"import_session",
	"user_bash",
	"set_label",
	"navigate_tree",
	"pause_queued_messages",
	"resume_queued_messages",
	"tool_approval_response",
	"set_approval_mode",
	"set_sandbox_mode",
	"get_mcp_servers",
	"list_sessions",
];

/** Writes raw input, then a get_state barrier; returns the records written in between. */
async function recordsFor(agent: RpcAgent, input: string | Buffer): Promise<RpcRecord[]> {
	const start = agent.mark();
	agent.sendRaw(input);
	const barrier = agent.nextId("barrier");
	await agent.request({ id: barrier, type: "get_state" });
	return agent.since(start).filter((record) => !isResponseTo(barrier)(record));
}

describe("the ready event", () => {
	it("is the first record and lists every command type", async () => {
		const { agent, ready } = await startAgent(harness.server);
		expect(agent.records[0]).toBe(ready);
		expect(ready).toEqual({
			type: "ready",
			version: PACKAGE_VERSION,
			protocolVersion: 1,
			pid: agent.child.pid,
			capabilities: ALL_COMMANDS,
		});
		// attach and detach are atomic serve's: over stdio they are refused, and not announced.
		expect(Object.keys(COMMANDS)).toEqual([...ALL_COMMANDS, "attach", "detach"]);
	});

	it("comes before the answer to a command sent before it", async () => {
		const { agent } = await startAgent(harness.server, { awaitReady: false });
		agent.send({ id: "early", type: "get_state" });
		agent.send({ id: "early-2", type: "set_session_name", name: "early" });
		await agent.waitFor(isResponseTo("early-2"));
		expect(agent.since(0).map((record) => record.type)).toEqual(["ready", "response", "response"]);
		expect(agent.records[1]).toMatchObject({ id: "early", success: true });
	});
});

describe("malformed input", () => {
	it("answers invalid JSON with a parse error that has no id, and keeps running", async () => {
		const { agent } = shared;
		const records = await recordsFor(agent, '{"id":"x", bad json\n');
		expect(records).toHaveLength(1);
		const [record] = records;
		expect(Object.keys(record as RpcRecord)).toEqual(["type", "command", "success", "error"]);
		expect(record).toMatchObject({ type: "response", command: "parse", success: false });
		expect(String(record?.error)).toMatch(/^Failed to parse command: \S/);
	});

	it("answers a blank line with one parse error", async () => {
		const { agent } = shared;
		expect(await recordsFor(agent, "\n")).toEqual([
			{ type: "response", command: "parse", success: false, error: "Failed to parse command: empty line" },
		]);
		expect(await recordsFor(agent, "   \t\n")).toEqual([
			{ type: "response", command: "parse", success: false, error: "Failed to parse command: empty line" },
		]);
	});

	it.each([
		["[]", "an array"],
		["5", "a number"],
		['"x"', "a string"],
		["null", "null"],
		["true", "a boolean"],
	])("answers the non-object %s with command unknown", async (input, described) => {
		const { agent } = shared;
		expect(await recordsFor(agent, `${input}\n`)).toEqual([
			{
				type: "response",
				command: "unknown",
				success: false,
				error: `Invalid command: expected a JSON object with a "type" field, got ${described}`,
			},
		]);
	});

	it("answers an object without a type, echoing its id when it has one", async () => {
		const { agent } = shared;
		const missing = {
			type: "response",
			command: "unknown",
			success: false,
			error: 'Invalid command: missing "type" field',
		};
		expect(await recordsFor(agent, "{}\n")).toEqual([missing]);
		expect(await recordsFor(agent, '{"id":"n"}\n')).toEqual([{ id: "n", ...missing }]);
		expect(await recordsFor(agent, '{"id":"t","type":42}\n')).toEqual([
			{
				id: "t",
				type: "response",
				command: "unknown",
				success: false,
				error: 'Invalid command: "type" must be a string, got a number',
			},
		]);
	});

	it("answers an unknown type with its id and name", async () => {
		const { agent } = shared;
		expect(await agent.request({ id: "u1", type: "foobar" })).toEqual({
			id: "u1",
			type: "response",
			command: "foobar",
			success: false,
			error: "Unknown command: foobar",
		});
		expect(await agent.request({ id: "u2", type: "context_compact" })).toMatchObject({
			command: "context_compact",
			error: "Unknown command: context_compact",
		});
	});

	it.each([
		[{ type: "set_steering_mode", mode: "bogus" }, 'field "mode" must be one of "all", "one-at-a-time"'],
		[{ type: "set_follow_up_mode" }, 'missing required field "mode"'],
		[{ type: "prompt" }, 'missing required field "message"'],
		[{ type: "prompt", message: 7 }, 'field "message" must be a string'],
		[
			{ type: "prompt", message: "x", images: [{ type: "image", data: 5, mimeType: "image/png" }] },
			'field "images[0].data" must be a string',
		],
		[
			{ type: "prompt", message: "x", images: [{ type: "image", data: "AA==" }] },
			'missing required field "images[0].mimeType"',
		],
		[
			{ type: "prompt", message: "x", streamingBehavior: "later" },
			'field "streamingBehavior" must be one of "steer", "followUp"',
		],
		[{ type: "set_model", provider: "mock" }, 'missing required field "modelId"'],
		[{ type: "cycle_model", direction: "sideways" }, 'field "direction" must be one of "forward", "backward"'],
		[{ type: "set_auto_compaction", enabled: "yes" }, 'field "enabled" must be a boolean'],
		[{ type: "set_auto_retry" }, 'missing required field "enabled"'],
		[{ type: "bash", command: ["ls"] }, 'field "command" must be a string'],
		[{ type: "abort_bash", requestId: true }, 'field "requestId" must be a string or a number'],
		[{ type: "get_entries", since: null }, 'field "since" must be a string'],
		[{ type: "fork" }, 'missing required field "entryId"'],
		[{ type: "switch_session" }, 'missing required field "sessionPath"'],
		[{ type: "set_session_name", name: 1 }, 'field "name" must be a string'],
		[{ type: "logout_provider" }, 'missing required field "provider"'],
		[{ type: "export_html", outputPath: false }, 'field "outputPath" must be a string'],
		[{ type: "new_session", parentSession: 1 }, 'field "parentSession" must be a string'],
		[{ type: "steer" }, 'missing required field "message"'],
		[{ type: "follow_up", message: {} }, 'field "message" must be a string'],
	])("names the bad field of %j", async (command, problem) => {
		const { agent } = shared;
		expect(await agent.request({ id: "bad", ...command })).toEqual({
			id: "bad",
			type: "response",
			command: command.type,
			success: false,
			error: `Invalid "${command.type}" command: ${problem}`,
		});
	});

	it("answers every command written after an invalid one in the same chunk, in order", async () => {
		// The first invalid command of a process is checked by the full validator, loaded then.
		const { agent } = await startAgent(harness.server);
		const input = [
			{ id: "o1", type: "prompt" },
			{ id: "o2", type: "get_state" },
			{ id: "o3", type: "set_steering_mode", mode: "bogus" },
			{ id: "o4", type: "get_last_assistant_text" },
		];
		const records = await recordsFor(agent, input.map((command) => `${JSON.stringify(command)}\n`).join(""));
		// Error responses are written as soon as the line is read; valid commands run on their lanes.
		const answered = (ids: string[]) => records.filter((record) => ids.includes(String(record.id)));
		expect(answered(["o1", "o3"]).map((record) => [record.id, record.success])).toEqual([
			["o1", false],
			["o3", false],
		]);
		expect(answered(["o2", "o4"]).map((record) => [record.id, record.success])).toEqual([
			["o2", true],
			["o4", true],
		]);
		expect(records).toHaveLength(4);
	});

	it("rejects an id that is neither a string nor a number", async () => {
		const { agent } = shared;
		expect(await recordsFor(agent, '{"id":true,"type":"get_state"}\n')).toEqual([
			{
				type: "response",
				command: "get_state",
				success: false,
				error: 'Invalid command: "id" must be a string or a number, got a boolean',
			},
		]);
	});

	it("describes an object id with the right article", async () => {
		const { agent } = shared;
		expect(await recordsFor(agent, '{"id":{"a":1},"type":"get_state"}\n')).toEqual([
			{
				type: "response",
				command: "get_state",
				success: false,
				error: 'Invalid command: "id" must be a string or a number, got an object',
			},
		]);
	});
});

describe("ids", () => {
	it("echoes a numeric id as a number", async () => {
		const { agent } = shared;
		const start = agent.mark();
		agent.send({ id: 42, type: "get_state" });
		const response = await agent.waitFor((record) => record.type === "response", { start });
		expect(response.id).toBe(42);
		expect(agent.rawLines[agent.records.indexOf(response)]).toMatch(/^\{"id":42,"type":"response"/);
	});

	it("answers 200 pipelined commands in order, each exactly once", async () => {
		const { agent } = shared;
		const ids = Array.from({ length: 200 }, (_, index) => `p${index}`);
		const start = agent.mark();
		agent.sendRaw(ids.map((id) => `${JSON.stringify({ id, type: "get_state" })}\n`).join(""));
		await agent.waitFor(isResponseTo("p199"), { start });
		const responses = agent.since(start, "response");
		expect(responses.map((response) => response.id)).toEqual(ids);
		expect(responses.every((response) => response.success === true && response.command === "get_state")).toBe(true);
	});

	it("gives exactly one response per id across a mixed batch", async () => {
		const { agent } = await startAgent(harness.server);
		const batch: Record<string, unknown>[] = [
			{ id: "m1", type: "get_state" },
			{ id: "m2", type: "set_steering_mode", mode: "all" },
			{ id: "m3", type: "nope" },
			{ id: "m4", type: "set_follow_up_mode", mode: "bad" },
			{ id: "m5", type: "get_messages" },
			{ id: "m6", type: "abort" },
			{ id: "m7", type: "bash", command: "echo one" },
			{ id: "m8", type: "get_last_assistant_text" },
			{ id: "m9", type: "clear_queue" },
			{ id: "m10", type: "compact" },
		];
		agent.sendRaw(batch.map((command) => `${JSON.stringify(command)}\n`).join(""));
		for (const command of batch) await agent.waitFor(isResponseTo(String(command.id)));
		await agent.request({ id: "m-barrier", type: "get_messages" });
		for (const command of batch) expect(responsesWithId(agent, String(command.id))).toHaveLength(1);
		expect(responsesWithId(agent, "m10")[0]).toEqual({
			id: "m10",
			type: "response",
			command: "compact",
			success: false,
			error: "Nothing to compact (session too small)",
		});
		expect(responsesWithId(agent, "m2")[0]).toEqual({
			id: "m2",
			type: "response",
			command: "set_steering_mode",
			success: true,
		});
		expect(indexOf(agent, isResponseTo("m1"))).toBeLessThan(indexOf(agent, isResponseTo("m5")));
	});
});
