import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { outputDefinitionName } from "../../src/rpc/protocol/schema-defs.js";
import { typeboxErrors } from "../protocol/schema-check.js";
import { textReply } from "../support/llm-server.js";
import { CLI, childEnv, makeAgentDir } from "../support/rpc-process.js";
import {
	approvalEntries,
	requestsAfter,
	respond,
	resultTexts,
	startPrompt,
	startWithPermissions,
	toolCall,
	toolCalls,
} from "./approvals-helpers.js";
import { anthropicBody, startAgent, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();
const ASK = { mode: "ask" };

describe("the audit trail", () => {
	it("every decision but the silent ones is an entry in get_entries and in the HTML export", async () => {
		const { agent, dirs } = await startWithPermissions(harness.server, { mode: "ask", deny: ["write(.env)"] });
		harness.server.enqueue(
			toolCalls(
				["u", "bash", { command: "echo 1 > one.txt" }],
				["r", "write", { path: ".env", content: "x" }],
				["d", "write", { path: "no.txt", content: "x" }],
				["s", "ls", {}],
			),
			textReply("done"),
		);
		const start = await startPrompt(agent, "go");
		const requests = await requestsAfter(agent, start, 2);
		await respond(agent, requests[0]?.id, "allow_always");
		await respond(agent, requests[1]?.id, "deny", "not now");
		await agent.waitForEvent("agent_settled", () => true, start);
		const entries = await approvalEntries(agent);
		expect(entries).toEqual([
			{
				type: "tool_approval",
				toolCallId: "r",
				toolName: "write",
				decision: "deny",
				by: "rule",
				rule: "write(.env)",
				reason: "Denied by rule write(.env)",
			},
			{
				type: "tool_approval",
				toolCallId: "u",
				toolName: "bash",
				decision: "allow_always",
				by: "user",
				rule: "bash(echo *)",
				reason: "approval mode ask: bash is not read-only",
				requestId: requests[0]?.id,
			},
			{
				type: "tool_approval",
				toolCallId: "d",
				toolName: "write",
				decision: "deny",
				by: "user",
				reason: "approval mode ask: write is not read-only",
				requestId: requests[1]?.id,
				message: "not now",
			},
		]);

		const output = join(dirs.root, "session.html");
		expect(await agent.ok({ type: "export_html", outputPath: output })).toEqual({ path: output });
		const html = readFileSync(output, "utf8");
		expect(html).toContain(
			'Tool approval: <code>bash</code> <strong class="approval-allow">always allowed</strong> by the user · rule <code>bash(echo *)</code>',
		);
		expect(html).toContain(
			'Tool approval: <code>write</code> <strong class="approval-deny">denied</strong> by the policy · rule <code>write(.env)</code>',
		);
		expect(html).toContain(
			'Tool approval: <code>write</code> <strong class="approval-deny">denied</strong> by the user</span>',
		);
		expect(html).toContain('<div class="note">Message: not now</div>');
		expect(html).toContain("approval: bash allow_always (user)");
	});

	it("a reopened session keeps its allow_always rules", async () => {
		const first = await startWithPermissions(harness.server, ASK, { sessions: true });
		harness.server.enqueue(toolCall("a", "bash", { command: "echo one > one.txt" }), textReply("first"));
		const start = await startPrompt(first.agent, "one");
		const [request] = await requestsAfter(first.agent, start);
		await respond(first.agent, request?.id, "allow_always");
		await first.agent.waitForEvent("agent_settled", () => true, start);
		const { sessionFile } = (await first.agent.ok({ type: "get_state" })) as { sessionFile: string };
		first.agent.closeStdin();
		expect((await first.agent.exited).code).toBe(0);

		const second = await startWithPermissions(harness.server, ASK, {
			sessions: true,
			args: ["--session", sessionFile],
		});
		harness.server.enqueue(toolCall("b", "bash", { command: "echo two > two.txt" }), textReply("second"));
		const { start: again } = await second.agent.prompt("two");
		expect(second.agent.since(again, "tool_approval_request")).toEqual([]);
		expect(resultTexts(second.agent, again).b).toMatchObject({ isError: false });
		expect(existsSync(join(first.dirs.work, "two.txt"))).toBe(true);
		expect((await approvalEntries(second.agent)).map((entry) => [entry.toolCallId, entry.decision, entry.by])).toEqual([
			["a", "allow_always", "user"],
			["b", "allow", "rule"],
		]);
		// A fresh session has no such rule.
		await second.agent.ok({ type: "new_session" });
		harness.server.enqueue(toolCall("c", "bash", { command: "echo three" }));
		const fresh = await startPrompt(second.agent, "three");
		expect(await requestsAfter(second.agent, fresh)).toHaveLength(1);
	});
});

interface CliRun {
	code: number | null;
	stdout: string;
	stderr: string;
}

function runCli(args: string[], dirs: ReturnType<typeof makeAgentDir>): Promise<CliRun> {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [CLI, ...args], { cwd: dirs.work, env: childEnv(dirs.agentDir, dirs.home) });
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (chunk: Buffer) => {
			stdout += chunk.toString("utf8");
		});
		child.stderr.on("data", (chunk: Buffer) => {
			stderr += chunk.toString("utf8");
		});
		child.on("close", (code) => resolve({ code, stdout, stderr }));
	});
}

const NOTE =
	'Note: approval mode "ask" and no client to approve: tool calls that need approval are denied (No client to approve)\n';

describe("print and json modes in ask", () => {
	it("print mode denies at once with No client to approve and says so on stderr", async () => {
		const dirs = makeAgentDir({ server: harness.server });
		try {
			harness.server.enqueue(toolCall("p", "bash", { command: "echo ran > ran.txt" }), textReply("could not run it"));
			const result = await runCli(["-p", "run it", "--approval-mode", "ask", "--no-session"], dirs);
			expect(result.stderr).toBe(NOTE);
			expect(result.code).toBe(0);
			expect(result.stdout).toBe("could not run it\n");
			expect(existsSync(join(dirs.work, "ran.txt"))).toBe(false);
			expect(JSON.stringify(anthropicBody(harness.server.requests[1]).messages.at(-1))).toContain(
				"No client to approve",
			);
		} finally {
			dirs.cleanup();
		}
	});

	it("json mode does the same; its records match the schema and hold no request", async () => {
		const dirs = makeAgentDir({ server: harness.server, settings: { permissions: ASK } });
		try {
			harness.server.enqueue(toolCall("j", "write", { path: "x.txt", content: "x" }), textReply("ok"));
			const result = await runCli(["--mode", "json", "-p", "write it", "--no-session"], dirs);
			expect(result.stderr).toBe(NOTE);
			expect(result.code).toBe(0);
			const records = result.stdout
				.trim()
				.split("\n")
				.map((line) => JSON.parse(line) as Record<string, unknown>);
			for (const record of records)
				expect(typeboxErrors(outputDefinitionName(record) ?? "OutputRecord", record)).toEqual([]);
			expect(records.filter((record) => String(record.type).startsWith("tool_approval"))).toEqual([]);
			const end = records.find((record) => record.type === "tool_execution_end");
			expect(end).toMatchObject({
				toolCallId: "j",
				isError: true,
				result: { content: [{ type: "text", text: "No client to approve" }] },
			});
			expect(existsSync(join(dirs.work, "x.txt"))).toBe(false);
		} finally {
			dirs.cleanup();
		}
	});

	it("read-only needs nobody to answer: no note", async () => {
		const dirs = makeAgentDir({ server: harness.server });
		try {
			harness.server.enqueue(textReply("hello"));
			const result = await runCli(["-p", "hi", "--approval-mode", "read-only", "--no-session"], dirs);
			expect(result.stderr).toBe("");
			expect(result.stdout).toBe("hello\n");
		} finally {
			dirs.cleanup();
		}
	});
});

describe("startAgent sanity", () => {
	it("reports approvalMode in get_state of an agent without settings", async () => {
		const { agent } = await startAgent(harness.server);
		expect(await agent.ok({ type: "get_state" })).toMatchObject({ approvalMode: "auto" });
	});
});
