import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import {
	approvalEntries,
	requestsAfter,
	resolvedSince,
	respond,
	resultTexts,
	startPrompt,
	startWithPermissions,
	toolCall,
	toolCalls,
} from "./approvals-helpers.js";
import { useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();
const ASK = { mode: "ask" };

describe("deny_always", () => {
	it("denies the call and adds a deny rule: the next call with the same first word is denied without asking", async () => {
		const { agent, dirs } = await startWithPermissions(harness.server, ASK);
		harness.server.enqueue(
			toolCall("call_1", "bash", { command: "touch one.txt" }),
			textReply("first"),
			toolCall("call_2", "bash", { command: "touch two.txt" }),
			textReply("second"),
		);
		const start = await startPrompt(agent, "one");
		const [request] = await requestsAfter(agent, start);
		expect(request).toMatchObject({
			options: ["allow", "allow_always", "deny", "deny_always"],
			alwaysRule: "bash(touch *)",
		});
		expect(await respond(agent, request?.id, "deny_always", "never touch files")).toMatchObject({ success: true });
		await agent.waitForEvent("agent_settled", () => true, start);
		expect(resolvedSince(agent, start)).toEqual([
			{
				type: "tool_approval_resolved",
				id: request?.id,
				toolCallId: "call_1",
				decision: "deny",
				by: "user",
				rule: "bash(touch *)",
			},
		]);
		expect(resultTexts(agent, start).call_1).toEqual({
			text: "Denied by the user: never touch files",
			isError: true,
		});

		const second = agent.mark();
		await agent.prompt("two");
		expect(agent.since(second, "tool_approval_request")).toEqual([]);
		expect(resultTexts(agent, second).call_2).toEqual({ text: "Denied by rule bash(touch *)", isError: true });
		expect(existsSync(join(dirs.work, "one.txt"))).toBe(false);
		expect(existsSync(join(dirs.work, "two.txt"))).toBe(false);
		expect(await approvalEntries(agent)).toEqual([
			{
				type: "tool_approval",
				toolCallId: "call_1",
				toolName: "bash",
				decision: "deny_always",
				by: "user",
				rule: "bash(touch *)",
				reason: "approval mode ask: bash is not read-only",
				requestId: request?.id,
				message: "never touch files",
			},
			{
				type: "tool_approval",
				toolCallId: "call_2",
				toolName: "bash",
				decision: "deny",
				by: "rule",
				rule: "bash(touch *)",
				reason: "Denied by rule bash(touch *)",
			},
		]);
		const output = join(dirs.root, "session.html");
		await agent.ok({ type: "export_html", outputPath: output });
		expect(readFileSync(output, "utf8")).toContain(
			'Tool approval: <code>bash</code> <strong class="approval-deny">always denied</strong> by the user · rule <code>bash(touch *)</code>',
		);
	});

	it("ends at once the other open requests its path rule covers", async () => {
		const { agent } = await startWithPermissions(harness.server, ASK);
		harness.server.enqueue(
			toolCalls(
				["w1", "write", { path: "secret.txt", content: "a" }],
				["w2", "write", { path: "./sub/../secret.txt", content: "b" }],
				["w3", "write", { path: "other.txt", content: "c" }],
			),
			textReply("done"),
		);
		const start = await startPrompt(agent, "write");
		const requests = await requestsAfter(agent, start, 3);
		const first = requests.find((item) => item.toolCallId === "w1");
		expect(first?.alwaysRule).toBe("write(secret.txt)");
		await respond(agent, first?.id, "deny_always");
		// w2 names the same file: the new rule decides it at once; w3 still waits.
		await agent.waitFor(() => resolvedSince(agent, start).length >= 2, { start, what: "two resolved requests" });
		expect(resolvedSince(agent, start).map((item) => [item.toolCallId, item.decision, item.by, item.rule])).toEqual([
			["w1", "deny", "user", "write(secret.txt)"],
			["w2", "deny", "rule", "write(secret.txt)"],
		]);
		const third = requests.find((item) => item.toolCallId === "w3");
		await respond(agent, third?.id, "allow");
		await agent.waitForEvent("agent_settled", () => true, start);
		const results = resultTexts(agent, start);
		expect(results.w1).toEqual({ text: "Denied by the user", isError: true });
		expect(results.w2).toEqual({ text: "Denied by rule write(secret.txt)", isError: true });
		expect(results.w3?.isError).toBe(false);
	});

	it("a reopened session keeps its deny_always rules; a new session does not have them", async () => {
		const first = await startWithPermissions(harness.server, ASK, { sessions: true });
		harness.server.enqueue(toolCall("a", "bash", { command: "touch one.txt" }), textReply("first"));
		const start = await startPrompt(first.agent, "one");
		const [request] = await requestsAfter(first.agent, start);
		await respond(first.agent, request?.id, "deny_always");
		await first.agent.waitForEvent("agent_settled", () => true, start);
		const { sessionFile } = (await first.agent.ok({ type: "get_state" })) as { sessionFile: string };
		first.agent.closeStdin();
		expect((await first.agent.exited).code).toBe(0);

		// Even in auto mode, where nothing asks, the session's deny rule holds.
		const second = await startWithPermissions(
			harness.server,
			{ mode: "auto" },
			{ sessions: true, args: ["--session", sessionFile] },
		);
		harness.server.enqueue(toolCall("b", "bash", { command: "touch two.txt" }), textReply("second"));
		const { start: again } = await second.agent.prompt("two");
		expect(resultTexts(second.agent, again).b).toEqual({ text: "Denied by rule bash(touch *)", isError: true });
		expect(existsSync(join(first.dirs.work, "two.txt"))).toBe(false);
		expect((await approvalEntries(second.agent)).map((entry) => [entry.toolCallId, entry.decision, entry.by])).toEqual([
			["a", "deny_always", "user"],
			["b", "deny", "rule"],
		]);
		await second.agent.ok({ type: "new_session" });
		harness.server.enqueue(toolCall("c", "bash", { command: "touch three.txt" }), textReply("third"));
		const { start: fresh } = await second.agent.prompt("three");
		expect(resultTexts(second.agent, fresh).c?.isError).toBe(false);
		expect(existsSync(join(first.dirs.work, "three.txt"))).toBe(true);
	});
});
