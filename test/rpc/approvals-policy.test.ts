import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import {
	approvalEntries,
	requestsAfter,
	resolvedSince,
	resultTexts,
	startPrompt,
	startWithPermissions,
	toolCall,
	toolCalls,
} from "./approvals-helpers.js";
import { startAgent, useRpcHarness, waitForStderr } from "./helpers.js";

const harness = useRpcHarness();

function writeProjectSettings(work: string, settings: Record<string, unknown>): void {
	mkdirSync(join(work, ".atomic"), { recursive: true });
	writeFileSync(join(work, ".atomic", "settings.json"), JSON.stringify(settings));
}

describe("approval modes", () => {
	it("auto (the default): every call runs, nothing is asked or recorded", async () => {
		const { agent, dirs } = await startAgent(harness.server);
		expect(await agent.ok({ type: "get_state" })).toMatchObject({ approvalMode: "auto" });
		harness.server.enqueue(toolCall("c1", "bash", { command: "echo ran > ran.txt" }), textReply("done"));
		const { start } = await agent.prompt("go");
		expect(agent.since(start, "tool_approval_request")).toEqual([]);
		expect(existsSync(join(dirs.work, "ran.txt"))).toBe(true);
		expect(await approvalEntries(agent)).toEqual([]);
	});

	it("ask: read, ls, grep and find run without asking; write asks", async () => {
		const { agent } = await startWithPermissions(
			harness.server,
			{ mode: "ask" },
			{
				prepare: (dirs) => writeFileSync(join(dirs.work, "notes.txt"), "hello\n"),
			},
		);
		harness.server.enqueue(
			toolCalls(
				["r", "read", { path: "notes.txt" }],
				["l", "ls", {}],
				["g", "grep", { pattern: "hello" }],
				["f", "find", { pattern: "*.txt" }],
				["w", "write", { path: "out.txt", content: "x" }],
			),
			textReply("done"),
		);
		const start = await startPrompt(agent, "look");
		const requests = await requestsAfter(agent, start);
		expect(requests.map((request) => request.toolName)).toEqual(["write"]);
		await agent.request({ type: "tool_approval_response", requestId: requests[0]?.id, decision: "allow" });
		await agent.waitForEvent("agent_settled", () => true, start);
		const results = resultTexts(agent, start);
		expect(Object.keys(results).sort()).toEqual(["f", "g", "l", "r", "w"]);
		expect(results.r).toMatchObject({ isError: false });
		expect(agent.since(start, "tool_approval_request")).toHaveLength(1);
		// The read-only calls ran by the mode: no audit entry.
		expect((await approvalEntries(agent)).map((entry) => entry.toolCallId)).toEqual(["w"]);
	});

	it("read-only: write and bash are denied without asking; read runs", async () => {
		const { agent, dirs } = await startWithPermissions(
			harness.server,
			{ mode: "read-only" },
			{
				prepare: (tree) => writeFileSync(join(tree.work, "notes.txt"), "hello\n"),
			},
		);
		harness.server.enqueue(
			toolCalls(
				["r", "read", { path: "notes.txt" }],
				["w", "write", { path: "out.txt", content: "x" }],
				["b", "bash", { command: "echo ran > ran.txt" }],
			),
			textReply("done"),
		);
		const { start } = await agent.prompt("go");
		expect(agent.since(start, "tool_approval_request")).toEqual([]);
		expect(resultTexts(agent, start)).toEqual({
			r: { text: expect.stringContaining("hello"), isError: false },
			w: { text: "Denied by approval mode read-only", isError: true },
			b: { text: "Denied by approval mode read-only", isError: true },
		});
		expect(existsSync(join(dirs.work, "out.txt")) || existsSync(join(dirs.work, "ran.txt"))).toBe(false);
		expect(await approvalEntries(agent)).toEqual([
			{
				type: "tool_approval",
				toolCallId: "w",
				toolName: "write",
				decision: "deny",
				by: "rule",
				reason: "Denied by approval mode read-only",
			},
			expect.objectContaining({ toolCallId: "b", decision: "deny", by: "rule" }),
		]);
	});

	it("set_approval_mode switches the mode; an open request the new mode decides ends at once", async () => {
		const { agent, dirs } = await startWithPermissions(harness.server, { mode: "ask" });
		const before = agent.mark();
		expect(await agent.request({ type: "set_approval_mode", mode: "read-only" })).toMatchObject({
			type: "response",
			command: "set_approval_mode",
			success: true,
		});
		// Announced before the response, like every change of get_state.
		expect(agent.records.slice(before).map((record) => record.type)).toEqual(["state_changed", "response"]);
		expect(agent.since(before, "state_changed")).toEqual([
			{ type: "state_changed", changes: { approvalMode: "read-only" } },
		]);
		expect(await agent.ok({ type: "get_state" })).toMatchObject({ approvalMode: "read-only" });
		await agent.ok({ type: "set_approval_mode", mode: "ask" });
		harness.server.enqueue(toolCall("s1", "bash", { command: "echo ran > ran.txt" }), textReply("done"));
		const start = await startPrompt(agent, "go");
		const [request] = await requestsAfter(agent, start);
		await agent.ok({ type: "set_approval_mode", mode: "auto" });
		await agent.waitForEvent("agent_settled", () => true, start);
		expect(resolvedSince(agent, start)).toEqual([
			{ type: "tool_approval_resolved", id: request?.id, toolCallId: "s1", decision: "allow", by: "rule" },
		]);
		expect(existsSync(join(dirs.work, "ran.txt"))).toBe(true);
		expect(await agent.ok({ type: "get_state" })).toMatchObject({ approvalMode: "auto" });
	});

	it("--approval-mode wins over the user's settings", async () => {
		const { agent } = await startWithPermissions(
			harness.server,
			{ mode: "ask" },
			{ args: ["--approval-mode", "read-only"] },
		);
		expect(await agent.ok({ type: "get_state" })).toMatchObject({ approvalMode: "read-only" });
	});
});

describe("allow and deny rules", () => {
	it("allow rules let matching calls run in ask mode; a line with another command still asks", async () => {
		const { agent, dirs } = await startWithPermissions(harness.server, {
			mode: "ask",
			allow: ["bash(echo *)", "write(src/**)"],
		});
		harness.server.enqueue(
			toolCalls(
				["b1", "bash", { command: "echo a > a.txt" }],
				["w1", "write", { path: "src/deep/x.ts", content: "x" }],
				["w2", "write", { path: "other/y.ts", content: "y" }],
				["b2", "bash", { command: "echo b > b.txt && touch c.txt" }],
			),
			textReply("done"),
		);
		const start = await startPrompt(agent, "go");
		const requests = await requestsAfter(agent, start, 2);
		expect(requests.map((request) => request.toolCallId)).toEqual(["w2", "b2"]);
		for (const request of requests) {
			await agent.request({ type: "tool_approval_response", requestId: request.id, decision: "deny" });
		}
		await agent.waitForEvent("agent_settled", () => true, start);
		expect(existsSync(join(dirs.work, "a.txt"))).toBe(true);
		expect(existsSync(join(dirs.work, "src", "deep", "x.ts"))).toBe(true);
		expect(existsSync(join(dirs.work, "c.txt"))).toBe(false);
		expect((await approvalEntries(agent)).slice(0, 2)).toMatchObject([
			{ toolCallId: "b1", decision: "allow", by: "rule", rule: "bash(echo *)" },
			{ toolCallId: "w1", decision: "allow", by: "rule", rule: "write(src/**)" },
		]);
	});

	it("a deny rule beats an allow rule", async () => {
		const { agent, dirs } = await startWithPermissions(harness.server, {
			mode: "ask",
			allow: ["write", "bash(echo *)"],
			deny: ["write(.env)", "bash(rm *)"],
		});
		harness.server.enqueue(
			toolCalls(
				["e", "write", { path: ".env", content: "SECRET=1" }],
				["r", "bash", { command: "echo hi && rm -rf src" }],
				["ok", "write", { path: "fine.txt", content: "x" }],
			),
			textReply("done"),
		);
		const { start } = await agent.prompt("go");
		expect(agent.since(start, "tool_approval_request")).toEqual([]);
		expect(resultTexts(agent, start)).toMatchObject({
			e: { text: "Denied by rule write(.env)", isError: true },
			r: { text: "Denied by rule bash(rm *)", isError: true },
			ok: { isError: false },
		});
		expect(existsSync(join(dirs.work, ".env"))).toBe(false);
		expect(existsSync(join(dirs.work, "fine.txt"))).toBe(true);
		expect(await approvalEntries(agent)).toEqual([
			{
				type: "tool_approval",
				toolCallId: "e",
				toolName: "write",
				decision: "deny",
				by: "rule",
				rule: "write(.env)",
				reason: "Denied by rule write(.env)",
			},
			expect.objectContaining({ toolCallId: "r", decision: "deny", by: "rule", rule: "bash(rm *)" }),
			expect.objectContaining({ toolCallId: "ok", decision: "allow", by: "rule", rule: "write" }),
		]);
	});

	it("deny rules apply in auto mode too, where everything else runs silently", async () => {
		const { agent, dirs } = await startWithPermissions(harness.server, { deny: ["bash(rm *)"] });
		harness.server.enqueue(
			toolCalls(["r", "bash", { command: "bash -c 'rm -rf x'" }], ["ok", "bash", { command: "echo 1 > one.txt" }]),
			textReply("done"),
		);
		const { start } = await agent.prompt("go");
		expect(resultTexts(agent, start)).toMatchObject({
			r: { text: "Denied by rule bash(rm *)", isError: true },
			ok: { isError: false },
		});
		expect(existsSync(join(dirs.work, "one.txt"))).toBe(true);
		expect((await approvalEntries(agent)).map((entry) => entry.toolCallId)).toEqual(["r"]);
	});
});

describe("project settings", () => {
	it("may not loosen the mode or add allow rules; its deny rules apply", async () => {
		const { agent, dirs } = await startWithPermissions(
			harness.server,
			{ mode: "ask" },
			{
				prepare: (tree) =>
					writeProjectSettings(tree.work, { permissions: { mode: "auto", allow: ["bash"], deny: ["write(*.lock)"] } }),
			},
		);
		const projectFile = join(dirs.work, ".atomic", "settings.json");
		await waitForStderr(
			agent,
			`Warning: ${projectFile}: permissions.mode "auto" is looser than "ask" and is ignored (a project file may only make the policy stricter)`,
		);
		await waitForStderr(
			agent,
			`Warning: ${projectFile}: permissions.allow is ignored (a project file may only make the policy stricter)`,
		);
		expect(await agent.ok({ type: "get_state" })).toMatchObject({ approvalMode: "ask" });
		harness.server.enqueue(
			toolCalls(["b", "bash", { command: "echo hi" }], ["l", "write", { path: "yarn.lock", content: "" }]),
			textReply("done"),
		);
		const start = await startPrompt(agent, "go");
		const [request] = await requestsAfter(agent, start);
		expect(request?.toolCallId).toBe("b");
		await agent.request({ type: "tool_approval_response", requestId: request?.id, decision: "allow" });
		await agent.waitForEvent("agent_settled", () => true, start);
		expect(resultTexts(agent, start).l).toEqual({ text: "Denied by rule write(*.lock)", isError: true });
	});

	it("may make the mode stricter, and set_approval_mode cannot go below it", async () => {
		const { agent, dirs } = await startAgent(harness.server, {
			prepare: (tree) => writeProjectSettings(tree.work, { permissions: { mode: "ask" } }),
		});
		expect(await agent.ok({ type: "get_state" })).toMatchObject({ approvalMode: "ask" });
		const projectFile = join(dirs.work, ".atomic", "settings.json");
		expect(await agent.request({ type: "set_approval_mode", mode: "auto" })).toMatchObject({
			success: false,
			error: `Approval mode "auto" is looser than "ask", which ${projectFile} requires`,
		});
		expect(await agent.ok({ type: "set_approval_mode", mode: "read-only" })).toBeUndefined();
		expect(await agent.ok({ type: "get_state" })).toMatchObject({ approvalMode: "read-only" });
	});

	it("an unreadable permissions block stops the start with the file, the key and what was expected", async () => {
		const { agent, dirs } = await startWithPermissions(harness.server, { mode: "sometimes" }, { awaitReady: false });
		const exit = await agent.exited;
		expect(exit.code).toBe(1);
		expect(agent.stderr).toContain(
			`${join(dirs.agentDir, "settings.json")}: permissions.mode: expected one of "auto", "ask", "read-only"`,
		);
		expect(agent.records).toEqual([]);
	});

	it("a rule that cannot be read stops the start too", async () => {
		const { agent, dirs } = await startWithPermissions(
			harness.server,
			{ deny: ["grep(src/**)"] },
			{ awaitReady: false },
		);
		expect((await agent.exited).code).toBe(1);
		expect(agent.stderr).toContain(
			`${join(dirs.agentDir, "settings.json")}: permissions.deny[0]: "grep(src/**)" is not a rule: only bash, read, write and edit take a pattern`,
		);
	});
});
