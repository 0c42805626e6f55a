import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { RpcAgent, RpcRecord } from "../support/rpc-process.js";
import { livingProcesses } from "../tools/process-helpers.js";
import { startAgent, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();
const MB = 1024 * 1024;

function rssBytes(pid: number): number {
	const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB$/m);
	if (!line?.[1]) throw new Error(`no VmRSS for ${pid}`);
	return Number(line[1]) * 1024;
}

/** What a process is doing: blocked writing its stdout, and how many bytes it has written so far. */
function writerState(pid: number): { blocked: boolean; written: number } | undefined {
	try {
		const [call, fd] = readFileSync(`/proc/${pid}/syscall`, "utf8").split(" ");
		const written = readFileSync(`/proc/${pid}/io`, "utf8").match(/^wchar: (\d+)$/m)?.[1];
		return { blocked: (call === "1" || call === "64") && fd === "0x1", written: Number(written) };
	} catch (error) {
		// The process ended between the lookup and the read.
		if (error instanceof Error && "code" in error && (error.code === "ENOENT" || error.code === "ESRCH")) {
			return undefined;
		}
		throw error;
	}
}

/**
 * Resolves once the process with exactly `args` is blocked writing its stdout and has written
 * nothing more over several checks in a row (it waits for its reader), with what it wrote by then
 * and the highest RSS `agentPid` had meanwhile.
 */
async function untilStalled(args: string[], agentPid: number): Promise<{ written: number; peakRss: number }> {
	const deadline = Date.now() + 8000;
	let peakRss = 0;
	let streak = 0;
	let last = -1;
	for (;;) {
		peakRss = Math.max(peakRss, rssBytes(agentPid));
		const [pid] = livingProcesses(args);
		const state = pid === undefined ? undefined : writerState(pid);
		streak = state?.blocked && state.written === last ? streak + 1 : 0;
		last = state?.written ?? -1;
		if (state && streak === 5) return { written: state.written, peakRss };
		if (Date.now() > deadline) throw new Error(`${args.join(" ")} never stalled (last state ${JSON.stringify(state)})`);
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
}

function deltaBytes(agent: RpcAgent, id: string): number {
	let bytes = 0;
	for (const record of agent.records) {
		if (record.type === "bash_execution_update" && record.id === id) bytes += Buffer.byteLength(String(record.delta));
	}
	return bytes;
}

describe("a client that stops reading stdout", () => {
	it("holds RPC bash output back (the command waits, memory stays bounded), then delivers every byte", async () => {
		const { agent } = await startAgent(harness.server);
		await agent.ok({ type: "get_state" });
		const idle = rssBytes(agent.child.pid as number);
		const size = 50 * MB + 1;
		agent.child.stdout.pause();
		agent.send({ id: "noisy", type: "bash", command: `yes | head -c ${size}` });
		const stalled = await untilStalled(["head", "-c", String(size)], agent.child.pid as number);
		// The pipes and the writer's buffer hold a few MB at most; nothing near the 50 MB.
		expect(stalled.written).toBeLessThan(16 * MB);
		expect(stalled.peakRss).toBeLessThan(idle + 150 * MB);
		agent.child.stdout.resume();
		const response = await agent.waitFor((record) => record.type === "response" && record.id === "noisy", {
			timeout: 30_000,
			what: "the bash response",
		});
		expect(response).toMatchObject({ success: true, data: { exitCode: 0, cancelled: false, truncated: true } });
		expect(deltaBytes(agent, "noisy")).toBe(size);
	});

	it("still aborts a bash command at once while its output waits", async () => {
		const { agent } = await startAgent(harness.server);
		const token = `slow-reader-${process.pid}`;
		agent.child.stdout.pause();
		agent.send({ id: "endless", type: "bash", command: `yes ${token}` });
		await untilStalled(["yes", token], agent.child.pid as number);
		agent.send({ id: "stop", type: "abort_bash", requestId: "endless" });
		// Ended while nothing is read yet.
		const deadline = Date.now() + 8000;
		while (livingProcesses(["yes", token]).length > 0) {
			if (Date.now() > deadline) throw new Error("the command outlived abort_bash");
			await new Promise((resolve) => setTimeout(resolve, 25));
		}
		agent.child.stdout.resume();
		const isResponse = (id: string) => (record: RpcRecord) => record.type === "response" && record.id === id;
		expect(await agent.waitFor(isResponse("stop"), { timeout: 30_000 })).toMatchObject({ success: true });
		expect(await agent.waitFor(isResponse("endless"), { timeout: 30_000 })).toMatchObject({
			success: true,
			data: { cancelled: true },
		});
	});
});
