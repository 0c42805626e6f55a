import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import type { RpcRecord } from "../support/rpc-process.js";
import {
	approvalEntries,
	OPTIONS,
	requestsAfter,
	resolvedSince,
	respond,
	resultTexts,
	startPrompt,
	startWithPermissions,
	toolCall,
	toolCalls,
	UUID,
} from "./approvals-helpers.js";
import { startWithExtensions } from "./extensions-helpers.js";
import { anthropicBody, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();
const ASK = { mode: "ask" };

describe("answering a tool approval request", () => {
	it("asks before a bash call in ask mode; allow runs it", async () => {
		const { agent, dirs } = await startWithPermissions(harness.server, ASK);
		harness.server.enqueue(toolCall("call_a", "bash", { command: "echo ran > ran.txt" }), textReply("done"));
		const start = await startPrompt(agent, "run it");
		const [request] = await requestsAfter(agent, start);
		expect(request).toEqual({
			type: "tool_approval_request",
			id: expect.stringMatching(UUID),
			toolCallId: "call_a",
			toolName: "bash",
			args: { command: "echo ran > ran.txt" },
			reason: "approval mode ask: bash is not read-only",
			options: OPTIONS,
			timeout: 60000,
			expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
			alwaysRule: "bash(echo *)",
		});
		expect(existsSync(join(dirs.work, "ran.txt"))).toBe(false);

		expect(await respond(agent, request?.id, "allow")).toEqual({
			id: expect.any(String),
			type: "response",
			command: "tool_approval_response",
			success: true,
		});
		await agent.waitForEvent("agent_settled", () => true, start);
		expect(existsSync(join(dirs.work, "ran.txt"))).toBe(true);
		expect(resolvedSince(agent, start)).toEqual([
			{ type: "tool_approval_resolved", id: request?.id, toolCallId: "call_a", decision: "allow", by: "user" },
		]);
		expect(resultTexts(agent, start).call_a?.isError).toBe(false);
		expect(await approvalEntries(agent)).toEqual([
			{
				type: "tool_approval",
				toolCallId: "call_a",
				toolName: "bash",
				decision: "allow",
				by: "user",
				reason: "approval mode ask: bash is not read-only",
				requestId: request?.id,
			},
		]);
	});

	it("deny without a message: the call does not run, the model reads why, the run goes on", async () => {
		const { agent, dirs } = await startWithPermissions(harness.server, ASK);
		harness.server.enqueue(toolCall("call_d", "bash", { command: "echo ran > ran.txt" }), textReply("understood"));
		const start = await startPrompt(agent, "run it");
		const [request] = await requestsAfter(agent, start);
		await respond(agent, request?.id, "deny");
		await agent.waitForEvent("agent_settled", () => true, start);
		expect(existsSync(join(dirs.work, "ran.txt"))).toBe(false);
		expect(resultTexts(agent, start)).toEqual({ call_d: { text: "Denied by the user", isError: true } });
		expect(resolvedSince(agent, start)).toMatchObject([{ decision: "deny", by: "user" }]);
		// The run went on: the model got the denial and answered.
		const last = anthropicBody(harness.server.requests[1]).messages.at(-1);
		expect(JSON.stringify(last)).toContain("Denied by the user");
		expect(await agent.ok({ type: "get_last_assistant_text" })).toEqual({ text: "understood" });
	});

	it("deny with a message: the model reads the message", async () => {
		const { agent } = await startWithPermissions(harness.server, ASK);
		harness.server.enqueue(toolCall("call_m", "write", { path: "a.txt", content: "x" }), textReply("ok"));
		const start = await startPrompt(agent, "write it");
		const [request] = await requestsAfter(agent, start);
		expect(request).toMatchObject({ toolName: "write", alwaysRule: "write(a.txt)" });
		await respond(agent, request?.id, "deny", "use b.txt instead");
		await agent.waitForEvent("agent_settled", () => true, start);
		expect(resultTexts(agent, start).call_m).toEqual({
			text: "Denied by the user: use b.txt instead",
			isError: true,
		});
		expect(await approvalEntries(agent)).toMatchObject([
			{ decision: "deny", by: "user", message: "use b.txt instead", requestId: request?.id },
		]);
	});

	it("allow_always adds a rule: the next call with the same first word runs without asking", async () => {
		const { agent, dirs } = await startWithPermissions(harness.server, ASK);
		harness.server.enqueue(
			toolCall("call_1", "bash", { command: "echo one > one.txt" }),
			textReply("first"),
			toolCall("call_2", "bash", { command: "echo two > two.txt" }),
			textReply("second"),
		);
		const start = await startPrompt(agent, "one");
		const [request] = await requestsAfter(agent, start);
		await respond(agent, request?.id, "allow_always");
		await agent.waitForEvent("agent_settled", () => true, start);
		expect(resolvedSince(agent, start)).toEqual([
			{
				type: "tool_approval_resolved",
				id: request?.id,
				toolCallId: "call_1",
				decision: "allow",
				by: "user",
				rule: "bash(echo *)",
			},
		]);

		const second = agent.mark();
		await agent.prompt("two");
		expect(agent.since(second, "tool_approval_request")).toEqual([]);
		expect(existsSync(join(dirs.work, "two.txt"))).toBe(true);
		expect(await approvalEntries(agent)).toEqual([
			expect.objectContaining({ toolCallId: "call_1", decision: "allow_always", by: "user", rule: "bash(echo *)" }),
			{
				type: "tool_approval",
				toolCallId: "call_2",
				toolName: "bash",
				decision: "allow",
				by: "rule",
				rule: "bash(echo *)",
				reason: "allowed by rule bash(echo *)",
			},
		]);
	});

	it("denies when no decision comes within the timeout", async () => {
		const { agent, dirs } = await startWithPermissions(harness.server, { mode: "ask", timeoutMs: 200 });
		harness.server.enqueue(toolCall("call_t", "bash", { command: "echo ran > ran.txt" }), textReply("ok"));
		const start = await startPrompt(agent, "run it");
		const [request] = await requestsAfter(agent, start);
		expect(request?.timeout).toBe(200);
		await agent.waitForEvent("agent_settled", () => true, start);
		expect(resolvedSince(agent, start)).toMatchObject([{ id: request?.id, decision: "deny", by: "timeout" }]);
		expect(resultTexts(agent, start).call_t).toEqual({ text: "No decision within 0.2 s: denied", isError: true });
		expect(existsSync(join(dirs.work, "ran.txt"))).toBe(false);
		expect(await approvalEntries(agent)).toEqual([
			{
				type: "tool_approval",
				toolCallId: "call_t",
				toolName: "bash",
				decision: "deny",
				by: "timeout",
				reason: "approval mode ask: bash is not read-only",
				requestId: request?.id,
			},
		]);
		// Too late now.
		expect(await respond(agent, request?.id, "allow")).toMatchObject({ success: false });
	});
});

describe("several requests at once", () => {
	it("parallel calls open a request each; each is answered on its own, in any order", async () => {
		const { agent, dirs } = await startWithPermissions(harness.server, ASK);
		harness.server.enqueue(
			toolCalls(
				["p1", "bash", { command: "echo 1 > one.txt" }],
				["p2", "write", { path: "two.txt", content: "2" }],
				["p3", "bash", { command: "echo 3 > three.txt" }],
			),
			textReply("done"),
		);
		const start = await startPrompt(agent, "three things");
		const requests = await requestsAfter(agent, start, 3);
		expect(requests.map((request) => request.toolCallId)).toEqual(["p1", "p2", "p3"]);
		expect(new Set(requests.map((request) => request.id)).size).toBe(3);
		// Nothing ran while all three were open.
		expect(agent.since(start, "tool_execution_end")).toEqual([]);

		const [one, two, three] = requests;
		await respond(agent, three?.id, "deny", "not three");
		await respond(agent, one?.id, "allow");
		await respond(agent, two?.id, "allow");
		await agent.waitForEvent("agent_settled", () => true, start);
		expect(resolvedSince(agent, start).map((record) => [record.toolCallId, record.decision])).toEqual([
			["p3", "deny"],
			["p1", "allow"],
			["p2", "allow"],
		]);
		expect(existsSync(join(dirs.work, "one.txt"))).toBe(true);
		expect(existsSync(join(dirs.work, "two.txt"))).toBe(true);
		expect(existsSync(join(dirs.work, "three.txt"))).toBe(false);
		expect(resultTexts(agent, start).p3).toEqual({ text: "Denied by the user: not three", isError: true });
	});

	it("abort resolves every open request (by abort) and the run ends as aborted", async () => {
		const { agent, dirs } = await startWithPermissions(harness.server, ASK);
		harness.server.enqueue(
			toolCalls(["a1", "bash", { command: "echo 1 > one.txt" }], ["a2", "bash", { command: "echo 2 > two.txt" }]),
			textReply("never"),
		);
		const start = await startPrompt(agent, "two things");
		const requests = await requestsAfter(agent, start, 2);
		expect(await agent.ok({ type: "abort" })).toBeUndefined();
		await agent.waitForEvent("agent_settled", () => true, start);
		expect(resolvedSince(agent, start)).toEqual(
			requests.map((request) => ({
				type: "tool_approval_resolved",
				id: request.id,
				toolCallId: request.toolCallId,
				decision: "deny",
				by: "abort",
			})),
		);
		const messages = agent.since(start, "agent_end").at(-1)?.messages as { role: string; stopReason?: string }[];
		expect(messages.filter((message) => message.role === "assistant").at(-1)?.stopReason).toBe("aborted");
		expect(existsSync(join(dirs.work, "one.txt")) || existsSync(join(dirs.work, "two.txt"))).toBe(false);
		expect((await approvalEntries(agent)).map((entry) => [entry.toolCallId, entry.decision, entry.by])).toEqual([
			["a1", "deny", "abort"],
			["a2", "deny", "abort"],
		]);
		// The model was not called again after the abort.
		expect(harness.server.requests).toHaveLength(1);
	});

	it("while a request is open, heartbeats say the agent waits on an approval", async () => {
		const { agent } = await startWithPermissions(harness.server, ASK, { settings: { heartbeatMs: 100 } });
		harness.server.enqueue(toolCall("h1", "bash", { command: "echo 1" }), textReply("done"));
		const start = await startPrompt(agent, "go");
		const [request] = await requestsAfter(agent, start);
		const requested = agent.records.indexOf(request as RpcRecord);
		expect(await agent.waitForEvent("heartbeat", () => true, requested)).toMatchObject({ waitingOn: "approval" });
		await respond(agent, request?.id, "allow");
		await agent.waitForEvent("agent_settled", () => true, start);
	});

	it("replacing the session cancels an open request (by abort)", async () => {
		const { agent } = await startWithPermissions(harness.server, ASK);
		harness.server.enqueue(toolCall("r1", "bash", { command: "echo 1" }));
		const start = await startPrompt(agent, "go");
		const [request] = await requestsAfter(agent, start);
		expect(await agent.ok({ type: "new_session" })).toEqual({ cancelled: false });
		expect(resolvedSince(agent, start)).toMatchObject([{ id: request?.id, decision: "deny", by: "abort" }]);
		expect(await respond(agent, request?.id, "allow")).toMatchObject({ success: false });
	});
});

describe("tool_approval_response errors", () => {
	it("an unknown or already answered request id gets success:false naming it", async () => {
		const { agent } = await startWithPermissions(harness.server, ASK);
		expect(await respond(agent, "no-such-request", "allow")).toEqual({
			id: expect.any(String),
			type: "response",
			command: "tool_approval_response",
			success: false,
			error: 'No open tool approval request with id "no-such-request" (unknown or already decided)',
		});
		harness.server.enqueue(toolCall("u1", "bash", { command: "echo 1" }), textReply("done"));
		const start = await startPrompt(agent, "go");
		const [request] = await requestsAfter(agent, start);
		expect(await respond(agent, request?.id, "allow")).toMatchObject({ success: true });
		expect(await respond(agent, request?.id, "deny")).toMatchObject({
			success: false,
			error: `No open tool approval request with id "${String(request?.id)}" (unknown or already decided)`,
		});
		await agent.waitForEvent("agent_settled", () => true, start);
		expect(resolvedSince(agent, start)).toHaveLength(1);
	});

	it("a bad decision is refused by validation, naming the field", async () => {
		const { agent } = await startWithPermissions(harness.server, ASK);
		expect(await respond(agent, "x", "maybe")).toMatchObject({
			success: false,
			error:
				'Invalid "tool_approval_response" command: field "decision" must be one of "allow", "allow_always", "deny", "deny_always"',
		});
	});
});

describe("order with extensions", () => {
	it("an extension's tool_call block comes first: no request is made", async () => {
		const blocker = [
			"export default function (atomic) {",
			'\tatomic.on("tool_call", (event) => (event.toolName === "bash" ? { block: true, reason: "blocked by policy.ts" } : undefined));',
			"}",
			"",
		].join("\n");
		const { agent } = await startWithExtensions(harness.server, {
			sources: { "policy.ts": blocker },
			settings: { permissions: ASK },
		});
		harness.server.enqueue(toolCall("x1", "bash", { command: "echo 1" }), textReply("done"));
		const { start } = await agent.prompt("go");
		expect(agent.since(start, "tool_approval_request")).toEqual([]);
		expect(resultTexts(agent, start).x1).toEqual({ text: "blocked by policy.ts", isError: true });
		expect(await approvalEntries(agent)).toEqual([]);
	});
});
