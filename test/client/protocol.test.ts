/**
 * The client's side of the wire against stand-in processes: LF-only framing, records the client
 * must survive, correlation of responses, and the protocol version check.
 */
import { describe, expect, it } from "vitest";
import { type RpcEvent, RpcProcessError } from "../../src/index.js";
import { DEFAULT_TIMEOUT_MS, timeoutFor, UNTIMED_COMMANDS } from "../../src/rpc/client/pending.js";
import { fakeAgent, useClientHarness } from "./helpers.js";

const harness = useClientHarness();

/** A stand-in that answers every command line with the line and its parsed record as `data` (LF-only reader). */
const ECHO = `
let buffer = "";
process.stdin.on("data", (chunk) => {
	buffer += chunk;
	let newline;
	while ((newline = buffer.indexOf("\\n")) >= 0) {
		const raw = buffer.slice(0, newline);
		const record = JSON.parse(raw);
		buffer = buffer.slice(newline + 1);
		const data = { echo: record, raw };
		process.stdout.write(JSON.stringify({ id: record.id, type: "response", command: record.type, success: true, data }) + "\\n");
	}
});`;

/** Writes `records` (raw text) to stdout in the given pieces, then waits for stdin to end. */
function writer(pieces: string[]): string {
	return `for (const piece of ${JSON.stringify(pieces)}) process.stdout.write(piece); process.stdin.resume();`;
}

function collect(client: ReturnType<typeof fakeAgent>): RpcEvent[] {
	const events: RpcEvent[] = [];
	client.onEvent((event) => events.push(event));
	return events;
}

describe("framing", () => {
	it("splits on LF only: U+2028/U+2029 stay inside strings, CRLF is stripped, split characters rejoin", async () => {
		const warning = JSON.stringify({ type: "warning", message: "line\u2028separator\u2029paragraph" });
		const crlf = JSON.stringify({ type: "warning", message: "crlf" });
		const split = Buffer.from(`${JSON.stringify({ type: "warning", message: "snow \u2603 man" })}\n`);
		const cut = split.indexOf(0xe2) + 1;
		const client = fakeAgent(
			`process.stdout.write(${JSON.stringify(`${warning}\n${crlf}\r\n`)});
			process.stdout.write(Buffer.from(${JSON.stringify([...split.subarray(0, cut)])}));
			setTimeout(() => process.stdout.write(Buffer.from(${JSON.stringify([...split.subarray(cut)])})), 20);
			process.stdin.resume();`,
		);
		const events = collect(client);
		const settled = new Promise<void>((resolve) =>
			client.onEvent((event) => {
				if (event.type === "warning" && event.message.startsWith("snow")) resolve();
			}),
		);
		await client.start();
		await settled;
		expect(events.map((event) => (event.type === "warning" ? event.message : event.type))).toEqual([
			"ready",
			"line\u2028separator\u2029paragraph",
			"crlf",
			"snow \u2603 man",
		]);
		await client.close();
	});

	it("commands go out as one LF-terminated line each, U+2028 escaped, with unique ids; any command type can be sent", async () => {
		const client = fakeAgent(ECHO);
		await client.start();
		const [first, second] = await Promise.all([
			client.request({ type: "future_command", text: "a\u2028b", count: 2 }),
			client.request({ type: "future_command" }),
		]);
		expect(first).toEqual({
			echo: { type: "future_command", text: "a\u2028b", count: 2, id: "req-1" },
			raw: String.raw`{"type":"future_command","text":"a\u2028b","count":2,"id":"req-1"}`,
		});
		expect(second).toEqual({
			echo: { type: "future_command", id: "req-2" },
			raw: '{"type":"future_command","id":"req-2"}',
		});
		expect(await client.request({ type: "get_state" })).toEqual({
			echo: { type: "get_state", id: "req-3" },
			raw: '{"type":"get_state","id":"req-3"}',
		});
		await client.close();
	});
});

describe("records the client survives", () => {
	it("reports malformed records, records without a type and id-less responses; drops late ones; goes on", async () => {
		const errors: Error[] = [];
		const lines = [
			"not json\n",
			'{"no":"type"}\n',
			'{"type":"response","command":"parse","success":false,"error":"Failed to parse command"}\n',
			'{"id":"req-99","type":"response","command":"get_state","success":true}\n',
			'{"type":"brand_new_event","field":1}\n',
			'{"type":"warning","message":"still here"}\n',
		];
		const client = fakeAgent(writer(lines), { onError: (error) => errors.push(error) });
		const events = collect(client);
		const last = new Promise<void>((resolve) =>
			client.onEvent((event) => {
				if (event.type === "warning") resolve();
			}),
		);
		await client.start();
		await last;
		expect(errors.map((error) => error.message)).toEqual([
			"Malformed record from the RPC process: not json",
			'Record without a type from the RPC process: {"no":"type"}',
			'Uncorrelated response from the RPC process: {"type":"response","command":"parse","success":false,"error":"Failed to parse command"}',
		]);
		// Unknown event types are delivered as they are.
		expect(events.slice(1)).toEqual([
			{ type: "brand_new_event", field: 1 },
			{ type: "warning", message: "still here" },
		]);
		await client.close();
	});

	it("refuses a process that speaks another protocol version", async () => {
		const client = fakeAgent("process.stdin.resume();", {}, 2);
		await expect(client.start()).rejects.toThrow("The RPC process speaks protocol version 2; this client speaks 1");
		expect(await client.exited).toEqual({ code: null, signal: "SIGKILL" });
		await expect(client.request({ type: "get_state" })).rejects.toBeInstanceOf(RpcProcessError);
		expect(harness.unhandled).toEqual([]);
	});
});

describe("timeout policy", () => {
	it("long commands have none, others 30 s; the client's per-command and the call's own win", () => {
		for (const command of ["prompt", "compact", "bash", "user_bash", "new_session", "switch_session", "fork", "clone"])
			expect(timeoutFor(command, {}, undefined)).toBe(false);
		for (const command of ["abort", "abort_bash", "abort_compaction", "abort_retry"])
			expect(UNTIMED_COMMANDS.has(command)).toBe(true);
		expect(timeoutFor("get_state", {}, undefined)).toBe(DEFAULT_TIMEOUT_MS);
		expect(DEFAULT_TIMEOUT_MS).toBe(30_000);
		expect(timeoutFor("get_state", { defaultMs: 5000 }, undefined)).toBe(5000);
		expect(timeoutFor("get_state", { defaultMs: false }, undefined)).toBe(false);
		expect(timeoutFor("compact", { commands: { compact: 60_000 } }, undefined)).toBe(60_000);
		expect(timeoutFor("get_state", { commands: { get_state: false } }, 100)).toBe(100);
		expect(timeoutFor("prompt", {}, 250)).toBe(250);
	});
});
