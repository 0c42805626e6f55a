import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textReply, toolReply } from "../support/llm-server.js";
import {
	processesMatching,
	responsesWithId,
	startAgent,
	uniqueToken,
	useRpcHarness,
	waitForStderr,
} from "./helpers.js";

const harness = useRpcHarness();

describe("shutdown", () => {
	it("on stdin EOF cancels a running bash, answers it, exits 0 and leaves no process behind", async () => {
		const { agent } = await startAgent(harness.server);
		const duration = `29.${uniqueToken("")}`;
		const start = agent.mark();
		agent.send({ id: "sleeper", type: "bash", command: `echo started; sleep ${duration}` });
		await agent.waitFor((record) => record.type === "bash_execution_update" && record.id === "sleeper", { start });
		// "started" can arrive before bash has started sleep: wait for the process to exist.
		await expect.poll(() => processesMatching(`sleep ${duration}`).length, { timeout: 10_000 }).toBeGreaterThan(0);
		agent.closeStdin();
		expect(await agent.exited).toEqual({ code: 0, signal: null });
		expect(responsesWithId(agent, "sleeper")).toEqual([
			{
				id: "sleeper",
				type: "response",
				command: "bash",
				success: true,
				data: { output: "started\n", cancelled: true, truncated: false },
			},
		]);
		expect(processesMatching(`sleep ${duration}`)).toEqual([]);
	});

	it("on stdin EOF during a prompt exits 0", async () => {
		const { agent } = await startAgent(harness.server);
		harness.server.enqueue({ ...textReply("never"), fault: "stall", faultAfterFrames: 3 });
		const start = agent.mark();
		await agent.request({ type: "prompt", message: "hang" });
		await agent.waitForEvent(
			"message_start",
			(record) => (record.message as { role: string }).role === "assistant",
			start,
		);
		agent.closeStdin();
		expect(await agent.exited).toEqual({ code: 0, signal: null });
	});

	it("exits 143 on SIGTERM and kills its shells", async () => {
		const { agent } = await startAgent(harness.server);
		const duration = `28.${uniqueToken("")}`;
		const start = agent.mark();
		agent.send({ id: "sleeper", type: "bash", command: `echo started; sleep ${duration}` });
		await agent.waitFor((record) => record.type === "bash_execution_update", { start });
		agent.kill("SIGTERM");
		expect(await agent.exited).toEqual({ code: 143, signal: null });
		expect(processesMatching(`sleep ${duration}`)).toEqual([]);
	});

	it("answers a command sent right before EOF", async () => {
		const { agent } = await startAgent(harness.server);
		agent.sendRaw('{"id":"last","type":"get_state"}\n');
		agent.closeStdin();
		expect(await agent.exited).toEqual({ code: 0, signal: null });
		expect(responsesWithId(agent, "last")).toHaveLength(1);
		expect(responsesWithId(agent, "last")[0]).toMatchObject({ success: true, command: "get_state" });
	});

	it("answers a final command that has no LF before EOF", async () => {
		const { agent } = await startAgent(harness.server);
		agent.sendRaw('{"id":"s","type":"set_steering_mode","mode":"all"}\n{"id":"tail","type":"get_messages"}');
		agent.closeStdin();
		expect(await agent.exited).toEqual({ code: 0, signal: null });
		expect(responsesWithId(agent, "s")).toEqual([
			{ id: "s", type: "response", command: "set_steering_mode", success: true },
		]);
		expect(responsesWithId(agent, "tail")).toEqual([
			{ id: "tail", type: "response", command: "get_messages", success: true, data: { messages: [] } },
		]);
	});
});

describe("stdout", () => {
	it("carries only protocol JSON while a tool writes to stderr and the process logs to the console", async () => {
		const noiseDir = mkdtempSync(join(tmpdir(), "atomic-noise-"));
		const noise = join(noiseDir, "noise.cjs");
		// Preloaded into the agent: on SIGUSR2 it logs to the console and writes to stdout directly.
		writeFileSync(
			noise,
			[
				'process.on("SIGUSR2", () => {',
				'  console.log("CONSOLE-LOG-NOISE");',
				'  console.info("CONSOLE-INFO-NOISE");',
				'  process.stdout.write("RAW-STDOUT-NOISE\\n");',
				'  console.error("NOISE-DONE");',
				"});",
			].join("\n"),
		);
		try {
			const { agent } = await startAgent(harness.server, { env: { NODE_OPTIONS: `--require ${noise}` } });
			const raw: Buffer[] = [];
			agent.child.stdout.on("data", (chunk: Buffer) => raw.push(chunk));

			harness.server.enqueue(
				toolReply("bash", { command: "echo tool-stdout; echo tool-stderr >&2; exit 1" }),
				textReply("saw it"),
			);
			const { start } = await agent.prompt("run it");
			const toolEnd = agent.since(start, "tool_execution_end")[0];
			expect(toolEnd).toMatchObject({ toolName: "bash", isError: true });
			expect(JSON.stringify(toolEnd?.result)).toContain("tool-stderr");
			expect(agent.stderr).not.toContain("tool-stderr");

			agent.child.kill("SIGUSR2");
			await waitForStderr(agent, "NOISE-DONE");
			await agent.request({ id: "after-noise", type: "get_state" });
			expect(agent.stderr).toContain("CONSOLE-LOG-NOISE");
			expect(agent.stderr).toContain("CONSOLE-INFO-NOISE");
			expect(agent.stderr).toContain("RAW-STDOUT-NOISE");

			const text = Buffer.concat(raw).toString("utf8");
			expect(text.endsWith("\n")).toBe(true);
			const lines = [...agent.rawLines];
			for (const line of text.slice(0, -1).split("\n")) expect(lines).toContain(line);
			for (const line of lines) expect(typeof (JSON.parse(line) as { type?: unknown }).type).toBe("string");
			expect(text).not.toContain("NOISE");
		} finally {
			rmSync(noiseDir, { recursive: true, force: true });
		}
	});
});
