import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, RpcProcessError, RpcTimeoutError } from "../../src/index.js";
import { textReply } from "../support/llm-server.js";
import { fakeAgent, nextEvent, startClient, useClientHarness } from "./helpers.js";

const harness = useClientHarness();

const MARKER = "client-test: extension loading";

/** An extension that writes MARKER to stderr and never finishes loading: get_commands then never answers. */
const STALLING_EXTENSION = `export default function () {\n\tconsole.error(${JSON.stringify(MARKER)});\n\treturn new Promise(() => undefined);\n}\n`;

/** Starts a client whose get_commands hangs; resolves once the extension wrote its marker to stderr. */
async function startWithHangingCommand(client: ConstructorParameters<typeof RpcClient>[0] = {}) {
	let sawMarker: () => void = () => undefined;
	const marker = new Promise<void>((resolve) => {
		sawMarker = resolve;
	});
	let stderr = "";
	const started = await startClient(harness.server, {
		args: ["-e", "../stall.js"],
		prepare: (dirs) => writeFileSync(join(dirs.root, "stall.js"), STALLING_EXTENSION),
		client: {
			...client,
			onStderr: (text) => {
				stderr += text;
				if (stderr.includes(MARKER)) sawMarker();
			},
		},
	});
	await marker;
	return started;
}

describe("process lifetime", () => {
	it("a SIGKILL rejects the pending request at once (it has no timeout), with the signal and the stderr tail", async () => {
		const { client } = await startWithHangingCommand();
		const pending = client.getCommands({ timeoutMs: false });
		const killedAt = Date.now();
		process.kill(client.pid ?? 0, "SIGKILL");
		const error = await pending.then(
			() => undefined,
			(reason: unknown) => reason,
		);
		// Without the exit rejecting it, the request would wait forever; the bound leaves a loaded machine room.
		expect(Date.now() - killedAt).toBeLessThan(5000);
		expect(error).toBeInstanceOf(RpcProcessError);
		expect(error).toMatchObject({ code: null, signal: "SIGKILL" });
		const { stderrTail, message } = error as RpcProcessError;
		expect(stderrTail).toContain(MARKER);
		expect(message).toBe(`The RPC process exited (code null, signal SIGKILL). Stderr: ${stderrTail}`);
		expect(await client.exited).toEqual({ code: null, signal: "SIGKILL" });
	});

	it("requests after the process died reject with the same error, without an unhandled EPIPE", async () => {
		const { client } = await startClient(harness.server);
		process.kill(client.pid ?? 0, "SIGKILL");
		// Written before the exit is noticed: the write fails (or the exit comes first); either way it rejects.
		const racing = client.getState();
		await client.exited;
		const later = client.getState();
		await expect(racing).rejects.toBeInstanceOf(RpcProcessError);
		await expect(later).rejects.toMatchObject({ name: "RpcProcessError", signal: "SIGKILL" });
		await expect(client.prompt("anyone?")).rejects.toBeInstanceOf(RpcProcessError);
	});

	it("a missing binary rejects start() and every request, with nothing unhandled", async () => {
		const client = new RpcClient({ command: "/nonexistent/atomic-binary", args: ["--no-session"] });
		const error = await client.start().then(
			() => undefined,
			(reason: unknown) => reason,
		);
		expect(error).toBeInstanceOf(RpcProcessError);
		expect(error).toMatchObject({ code: null, signal: null, stderrTail: "" });
		expect((error as Error).message).toMatch(
			/^Could not start the RPC process \(\/nonexistent\/atomic-binary\): .*ENOENT/,
		);
		await expect(client.getState()).rejects.toBe(error);
		const exit = await client.exited;
		expect(exit.error?.message).toContain("ENOENT");
		expect(await client.close()).toBe(exit);
		expect(harness.unhandled).toEqual([]);
	});

	it("a process that exits before ready rejects start() with its code and stderr", async () => {
		const { client } = await startClient(harness.server, { args: ["--provider", "nosuchprovider"], start: false });
		const error = await client.start().then(
			() => undefined,
			(reason: unknown) => reason,
		);
		expect(error).toBeInstanceOf(RpcProcessError);
		expect(error).toMatchObject({ code: 1, signal: null });
		expect((error as RpcProcessError).stderrTail).toContain('Unknown provider "nosuchprovider"');
	});

	it("start() gives up after startTimeoutMs without a ready event and kills the child", async () => {
		const client = new RpcClient({
			command: process.execPath,
			commandArgs: ["-e", "setInterval(() => undefined, 1000)", "--"],
			startTimeoutMs: 200,
		});
		const start = client.start();
		await expect(start).rejects.toBeInstanceOf(RpcTimeoutError);
		await expect(start).rejects.toThrow("Timed out after 200 ms waiting for the ready event");
		expect(await client.exited).toEqual({ code: null, signal: "SIGKILL" });
	});

	it("requests before start() reject", async () => {
		const { client } = await startClient(harness.server, { start: false });
		await expect(client.getState()).rejects.toThrow("RpcClient is not started: call start() before get_state");
	});
});

describe("close()", () => {
	it("closes a busy agent: stdin EOF ends the run, then the process exits 0", async () => {
		const { client } = await startClient(harness.server);
		harness.server.enqueue({ ...textReply("never finished"), fault: "stall", faultAfterFrames: 3 });
		const streaming = nextEvent(client, "message_update");
		const outcome = client.promptAndWait("go");
		await streaming;
		const [exit, second] = await Promise.all([client.close(), client.close()]);
		expect(exit).toEqual({ code: 0, signal: null });
		expect(second).toBe(exit);
		// The agent ends the run (aborted) before it exits, so the wait settles normally.
		expect((await outcome).messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
		await expect(client.getState()).rejects.toThrow("The RPC process exited (code 0, signal null) after close()");
	});

	it("rejects a request still pending when the process exits after close()", async () => {
		// However long a loaded machine takes to end on SIGTERM, it is not killed (the exit has a code).
		const { client } = await startWithHangingCommand({ closeTimeoutMs: 300, killGraceMs: 30_000 });
		const pending = client.getCommands();
		const rejection = pending.then(
			() => undefined,
			(reason: unknown) => reason,
		);
		const exit = await client.close();
		expect(exit.signal).toBeNull();
		const error = await rejection;
		expect(error).toBeInstanceOf(RpcProcessError);
		expect(error).toMatchObject({ code: exit.code, signal: null });
		expect((error as Error).message).toContain(`The RPC process exited (code ${exit.code}, signal null) after close()`);
	});

	it("sends SIGTERM when the process ignores stdin EOF", async () => {
		const client = fakeAgent("process.stdin.resume(); setInterval(() => undefined, 1000);", {
			closeTimeoutMs: 100,
		});
		await client.start();
		expect(await client.close()).toEqual({ code: null, signal: "SIGTERM" });
	});

	it("sends SIGKILL when the process also ignores SIGTERM", async () => {
		const client = fakeAgent(
			"process.stdin.resume(); process.on('SIGTERM', () => undefined); setInterval(() => undefined, 1000);",
			{ closeTimeoutMs: 100, killGraceMs: 100 },
		);
		await client.start();
		expect(await client.close()).toEqual({ code: null, signal: "SIGKILL" });
	});
});

describe("timeouts", () => {
	it("a per-call timeout rejects a slow compact; the late response is dropped and the client goes on", async () => {
		const { client, errors } = await startClient(harness.server);
		harness.server.enqueue(textReply("ok"), textReply("done"));
		await client.promptAndWait(Array.from({ length: 30 }, (_, index) => `line ${index + 1}`).join("\n"));
		await client.promptAndWait("second");
		harness.server.enqueue({ ...textReply("2,10"), headersDelayMs: 1500 });
		const end = nextEvent(client, "compaction_end");
		const compaction = client.compact({}, { timeoutMs: 100 });
		await expect(compaction).rejects.toBeInstanceOf(RpcTimeoutError);
		await expect(compaction).rejects.toThrow("Timed out after 100 ms waiting for the response to compact");
		await expect(compaction).rejects.toMatchObject({ command: "compact", timeoutMs: 100 });
		// get_state is answered while the compaction runs (it only reads); once it is done, it says so.
		expect((await client.getState()).isCompacting).toBe(true);
		expect(await end).toMatchObject({ aborted: false, result: { rung: "planned" } });
		expect((await client.getState()).isCompacting).toBe(false);
		expect(errors).toEqual([]);
	});

	it("per-command timeouts from the client options apply to every call", async () => {
		const { client } = await startWithHangingCommand();
		const started = Date.now();
		await expect(client.getCommands({ timeoutMs: 150 })).rejects.toThrow(
			"Timed out after 150 ms waiting for the response to get_commands",
		);
		expect(Date.now() - started).toBeLessThan(5000);
		const strict = await startClient(harness.server, {
			args: ["-e", "../stall.js"],
			prepare: (dirs) => writeFileSync(join(dirs.root, "stall.js"), STALLING_EXTENSION),
			client: { timeouts: { commands: { get_commands: 120 } } },
		});
		await expect(strict.client.getCommands()).rejects.toThrow(
			"Timed out after 120 ms waiting for the response to get_commands",
		);
		// get_commands still waits for the extension; commands that overtake (abort) still answer.
		await expect(strict.client.abort()).resolves.toBeUndefined();
	});
});
