import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textReply, toolReply } from "../support/llm-server.js";
import {
	isResponseTo,
	readJsonl,
	responsesWithId,
	startAgent,
	transcript,
	useRpcHarness,
	waitForFileCommand,
} from "./helpers.js";

const harness = useRpcHarness();

function bashCommandsIn(records: Record<string, unknown>[]): string[] {
	return records
		.filter((record) => record.type === "message")
		.map((record) => record.message as { role: string; command?: string })
		.filter((message) => message.role === "bashExecution")
		.map((message) => message.command ?? "");
}

async function sessionFile(agent: { ok(command: Record<string, unknown>): Promise<unknown> }): Promise<string> {
	const state = (await agent.ok({ type: "get_state" })) as { sessionFile: string };
	return state.sessionFile;
}

describe("bash across a session replacement", () => {
	it("keeps streaming under its id, answers once, and records only in the session it started in", async () => {
		const { agent, dirs } = await startAgent(harness.server, { sessions: true });
		harness.server.enqueue(textReply("first session"));
		await agent.prompt("hello");
		const original = await sessionFile(agent);
		expect(existsSync(original)).toBe(true);

		const gate = join(dirs.root, "gate");
		const command = `echo before; ${waitForFileCommand(gate)}; echo after`;
		const start = agent.mark();
		agent.send({ id: "long", type: "bash", command });
		await agent.waitFor((record) => record.type === "bash_execution_update" && record.delta === "before\n", { start });

		expect(await agent.request({ id: "ns", type: "new_session" })).toEqual({
			id: "ns",
			type: "response",
			command: "new_session",
			success: true,
			data: { cancelled: false },
		});
		const replacement = await sessionFile(agent);
		expect(replacement).not.toBe(original);

		writeFileSync(gate, "");
		const response = await agent.waitFor(isResponseTo("long"), { start });
		expect(response.data).toEqual({ output: "before\nafter\n", exitCode: 0, cancelled: false, truncated: false });
		const deltas = agent
			.since(start, "bash_execution_update")
			.map((record) => `${String(record.id)}:${String(record.channel)}:${String(record.delta)}`);
		expect(deltas).toEqual(["long:stdout:before\n", "long:stdout:after\n"]);
		expect(agent.records.indexOf(response)).toBeGreaterThan(agent.records.findIndex(isResponseTo("ns")));

		// The replacement session stays clean: in memory, in the model's context, and in its file.
		expect(await agent.ok({ type: "get_messages" })).toEqual({ messages: [] });
		harness.server.enqueue(textReply("second session"));
		await agent.prompt("fresh");
		expect(transcript(harness.server.requests[1])).toEqual(["user: fresh"]);
		await agent.request({ id: "barrier", type: "get_state" });
		expect(responsesWithId(agent, "long")).toHaveLength(1);

		expect(bashCommandsIn(readJsonl(original))).toEqual([command]);
		expect(existsSync(replacement)).toBe(true);
		expect(bashCommandsIn(readJsonl(replacement))).toEqual([]);
	});

	it("defers a result that finishes during a run to the next prompt", async () => {
		const { agent, dirs } = await startAgent(harness.server, { sessions: true });
		const gate = join(dirs.root, "gate");
		harness.server.enqueue(toolReply("bash", { command: waitForFileCommand(gate) }), textReply("tool done"));
		const start = agent.mark();
		await agent.request({ type: "prompt", message: "run the tool" });
		await agent.waitForEvent("tool_execution_start", () => true, start);
		expect(await agent.ok({ type: "bash", command: "echo during" })).toMatchObject({ output: "during\n", exitCode: 0 });
		writeFileSync(gate, "");
		await agent.waitForEvent("agent_settled", () => true, start);
		// Not yet in the conversation: the run was active when it finished.
		expect(transcript(harness.server.requests[1])).not.toContain("user: Ran `echo during`\n```\nduring\n```");
		harness.server.enqueue(textReply("seen"));
		await agent.prompt("next");
		expect(transcript(harness.server.requests[2]).slice(-2)).toEqual([
			"user: Ran `echo during`\n```\nduring\n```",
			"user: next",
		]);
	});
});
