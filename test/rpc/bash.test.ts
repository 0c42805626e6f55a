import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RpcAgent, RpcRecord } from "../support/rpc-process.js";
import {
	indexOf,
	isResponseTo,
	responsesWithId,
	startAgent,
	transcript,
	uniqueToken,
	useRpcHarness,
	useSharedAgent,
	waitForFileCommand,
} from "./helpers.js";

const harness = useRpcHarness();

function deltasOf(agent: RpcAgent, id: string | number): RpcRecord[] {
	return agent.records.filter((record) => record.type === "bash_execution_update" && record.id === id);
}

/** Starts a bash request and resolves once its first output has arrived (the shell is running). */
async function startBash(agent: RpcAgent, id: string | number, command: string): Promise<void> {
	const start = agent.mark();
	agent.send({ id, type: "bash", command });
	await agent.waitFor((record) => record.type === "bash_execution_update" && record.id === id, { start });
}

describe("bash", () => {
	// Bash requests that are all answered before the test ends leave nothing a later one sees.
	const shared = useSharedAgent(harness);

	it("answers with the result after streaming its output under the request id", async () => {
		const { agent } = shared;
		const start = agent.mark();
		const response = await agent.request({ id: "b1", type: "bash", command: "echo hi" });
		expect(response).toEqual({
			id: "b1",
			type: "response",
			command: "bash",
			success: true,
			data: { output: "hi\n", exitCode: 0, cancelled: false, truncated: false },
		});
		expect(deltasOf(agent, "b1")).toEqual([
			{ type: "bash_execution_update", id: "b1", channel: "stdout", delta: "hi\n" },
		]);
		expect(indexOf(agent, (record) => record.type === "bash_execution_update", start)).toBeLessThan(
			agent.records.indexOf(response),
		);
	});

	it("streams stdout and stderr on their channels, all before the response", async () => {
		const { agent } = shared;
		const response = await agent.request({ id: "b2", type: "bash", command: "echo out; echo err >&2" });
		const deltas = deltasOf(agent, "b2");
		const byChannel = (channel: string) =>
			deltas
				.filter((delta) => delta.channel === channel)
				.map((delta) => delta.delta)
				.join("");
		expect(byChannel("stdout")).toBe("out\n");
		expect(byChannel("stderr")).toBe("err\n");
		expect(deltas.every((delta) => agent.records.indexOf(delta) < agent.records.indexOf(response))).toBe(true);
		const data = response.data as { output: string };
		expect(data.output.split("\n").sort()).toEqual(["", "err", "out"]);
		expect(data).toEqual({ output: data.output, exitCode: 0, cancelled: false, truncated: false });
	});

	it("streams without an id when the request has none, and echoes a numeric id as a number", async () => {
		const { agent } = shared;
		const start = agent.mark();
		agent.send({ type: "bash", command: "echo anonymous" });
		const response = await agent.waitFor((record) => record.type === "response", { start });
		expect(response).toEqual({
			type: "response",
			command: "bash",
			success: true,
			data: { output: "anonymous\n", exitCode: 0, cancelled: false, truncated: false },
		});
		expect(agent.since(start, "bash_execution_update")).toEqual([
			{ type: "bash_execution_update", channel: "stdout", delta: "anonymous\n" },
		]);
		await agent.request({ id: 9, type: "bash", command: "echo numbered" });
		expect(agent.records.filter((record) => record.type === "bash_execution_update" && record.id === 9)).toEqual([
			{ type: "bash_execution_update", id: 9, channel: "stdout", delta: "numbered\n" },
		]);
	});

	// Ids may be numbers; abort_bash targets them by the same number.
	it("abort_bash targets a request by its numeric id", async () => {
		const { agent } = shared;
		await startBash(agent, 7, `echo started; sleep ${uniqueToken("3")}`);
		expect(await agent.request({ id: "cancel-7", type: "abort_bash", requestId: 7 })).toMatchObject({ success: true });
		expect((await agent.waitFor(isResponseTo(7))).data).toMatchObject({ cancelled: true });
	});

	it("abort_bash reaches a numeric id given as a string", async () => {
		const { agent } = shared;
		await startBash(agent, 8, `echo started; sleep ${uniqueToken("3")}`);
		expect(await agent.request({ id: "cancel-8", type: "abort_bash", requestId: "8" })).toMatchObject({
			success: true,
		});
		expect((await agent.waitFor(isResponseTo(8))).data).toEqual({
			output: "started\n",
			cancelled: true,
			truncated: false,
		});
	});

	it("reports a non-zero exit as a successful response with the code", async () => {
		const { agent } = shared;
		expect(await agent.request({ id: "b3", type: "bash", command: "echo failing; exit 3" })).toEqual({
			id: "b3",
			type: "response",
			command: "bash",
			success: true,
			data: { output: "failing\n", exitCode: 3, cancelled: false, truncated: false },
		});
	});

	it("keeps the tail of a long output and the whole of it in fullOutputPath", async () => {
		const { agent, dirs } = shared;
		const response = await agent.request({ id: "b4", type: "bash", command: "seq 1 100000" }, 30_000);
		const data = response.data as { output: string; truncated: boolean; fullOutputPath?: string; exitCode: number };
		expect(data).toMatchObject({ truncated: true, cancelled: false, exitCode: 0 });
		const lines = data.output.replace(/\n$/, "").split("\n");
		expect(lines.length).toBeLessThanOrEqual(2000);
		expect(Buffer.byteLength(data.output)).toBeLessThanOrEqual(51_200);
		expect(lines.at(-1)).toBe("100000");
		expect(lines[0]).toBe(String(100001 - lines.length));
		const full = Array.from({ length: 100_000 }, (_, index) => `${index + 1}\n`).join("");
		expect(data.fullOutputPath?.startsWith(join(dirs.root, "tmp"))).toBe(true);
		expect(readFileSync(data.fullOutputPath as string, "utf8")).toBe(full);
		// Deltas are never truncated.
		const streamed = deltasOf(agent, "b4")
			.map((delta) => delta.delta)
			.join("");
		expect(streamed).toBe(full);
	});

	it("abort_bash with a requestId cancels only that request", async () => {
		const { agent, dirs } = shared;
		const gate = join(dirs.root, "gate");
		await startBash(agent, "keep", `echo started; ${waitForFileCommand(gate)}; echo finished`);
		await startBash(agent, "stop", `echo started; sleep ${uniqueToken("3")}`);
		expect(await agent.request({ id: "cancel-1", type: "abort_bash", requestId: "stop" })).toEqual({
			id: "cancel-1",
			type: "response",
			command: "abort_bash",
			success: true,
		});
		const stopped = await agent.waitFor(isResponseTo("stop"));
		expect(stopped).toEqual({
			id: "stop",
			type: "response",
			command: "bash",
			success: true,
			data: { output: "started\n", cancelled: true, truncated: false },
		});
		expect(responsesWithId(agent, "keep")).toEqual([]);
		writeFileSync(gate, "");
		expect(await agent.waitFor(isResponseTo("keep"))).toMatchObject({
			data: { output: "started\nfinished\n", exitCode: 0, cancelled: false, truncated: false },
		});
	});

	// The request is registered before anything is awaited, so an abort_bash written right after it
	// (same write) cancels it.
	it("abort_bash written right after its bash request cancels it", async () => {
		const { agent } = shared;
		const start = agent.mark();
		const bash = { id: "quick", type: "bash", command: "sleep 1.5; echo finished" };
		const abort = { id: "kill-quick", type: "abort_bash", requestId: "quick" };
		agent.sendRaw(`${JSON.stringify(bash)}\n${JSON.stringify(abort)}\n`);
		const response = await agent.waitFor(isResponseTo("quick"), { start });
		expect(responsesWithId(agent, "kill-quick")).toHaveLength(1);
		expect(response.data).toEqual({ output: "", cancelled: true, truncated: false });
	});

	it("abort_bash without a requestId cancels every request", async () => {
		const { agent } = shared;
		await startBash(agent, "one", `echo started; sleep ${uniqueToken("3")}`);
		await startBash(agent, "two", `echo started; sleep ${uniqueToken("3")}`);
		expect(await agent.request({ id: "all", type: "abort_bash" })).toEqual({
			id: "all",
			type: "response",
			command: "abort_bash",
			success: true,
		});
		for (const id of ["one", "two"]) {
			const response = await agent.waitFor(isResponseTo(id));
			expect(response.data).toEqual({ output: "started\n", cancelled: true, truncated: false });
		}
		expect(await agent.request({ id: "none", type: "abort_bash", requestId: "gone" })).toMatchObject({ success: true });
	});
});

describe("bash results in the conversation", () => {
	it("hands the output to the model with the next prompt", async () => {
		const { agent } = await startAgent(harness.server);
		await agent.ok({ type: "bash", command: "echo hi" });
		await agent.ok({ type: "bash", command: "exit 2" });
		const { messages } = (await agent.ok({ type: "get_messages" })) as { messages: unknown[] };
		expect(messages).toEqual([
			{
				role: "bashExecution",
				command: "echo hi",
				output: "hi\n",
				exitCode: 0,
				cancelled: false,
				truncated: false,
				timestamp: expect.any(Number),
			},
			{
				role: "bashExecution",
				command: "exit 2",
				output: "",
				exitCode: 2,
				cancelled: false,
				truncated: false,
				timestamp: expect.any(Number),
			},
		]);
		expect(harness.server.requests).toHaveLength(0);
		await agent.prompt("what happened?");
		expect(transcript(harness.server.requests[0])).toEqual([
			"user: Ran `echo hi`\n```\nhi\n```",
			"user: Ran `exit 2`\n(no output)\nCommand exited with code 2",
			"user: what happened?",
		]);
	});

	it("keeps an excludeFromContext result away from the model", async () => {
		const { agent } = await startAgent(harness.server);
		const secret = uniqueToken("secret");
		await agent.ok({ type: "bash", command: `echo ${secret}`, excludeFromContext: true });
		await agent.ok({ type: "bash", command: "echo visible" });
		const { messages } = (await agent.ok({ type: "get_messages" })) as { messages: Record<string, unknown>[] };
		expect(messages[0]).toMatchObject({ role: "bashExecution", output: `${secret}\n`, excludeFromContext: true });
		await agent.prompt("go");
		expect(JSON.stringify(harness.server.requests[0]?.body)).not.toContain(secret);
		expect(transcript(harness.server.requests[0])).toEqual(["user: Ran `echo visible`\n```\nvisible\n```", "user: go"]);
	});

	it("reports a command that cannot start as one failed response", async () => {
		const { agent } = await startAgent(harness.server, { settings: { shellPath: "/nonexistent/atomic-test-shell" } });
		const response = await agent.request({ id: "nosh", type: "bash", command: "echo hi" });
		expect(response).toEqual({
			id: "nosh",
			type: "response",
			command: "bash",
			success: false,
			error: "Could not start the shell /nonexistent/atomic-test-shell: spawn /nonexistent/atomic-test-shell ENOENT",
		});
		expect(responsesWithId(agent, "nosh")).toHaveLength(1);
	});
});
