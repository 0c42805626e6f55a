import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { textReply } from "../support/llm-server.js";
import { stdioServerScript } from "../support/mcp-stdio.js";
import { approvalEntries, requestsAfter, respond, resultTexts, startPrompt, toolCalls } from "./approvals-helpers.js";
import { startAgent, useRpcHarness } from "./helpers.js";

const harness = useRpcHarness();

/** An agent in ask mode (plus `permissions`) whose mcp.json has the test server as `test`, once it is connected. */
async function startWithMcp(permissions: Record<string, unknown> = {}) {
	const script = await stdioServerScript();
	const started = await startAgent(harness.server, {
		settings: { permissions: { mode: "ask", ...permissions } },
		prepare: (dirs) =>
			writeFileSync(
				join(dirs.agentDir, "mcp.json"),
				JSON.stringify({ mcpServers: { test: { command: process.execPath, args: [script, "{}"] } } }),
			),
	});
	await started.agent.waitForEvent(
		"mcp_server_update",
		(record) => record.name === "test" && record.status === "connected",
	);
	return started;
}

describe("tool approvals for MCP tools", () => {
	it("a tool the server marks read-only runs in ask mode; one without the hint asks", async () => {
		const { agent } = await startWithMcp();
		harness.server.enqueue(
			toolCalls(["e", "mcp__test__echo", { text: "hi" }], ["w", "mcp__test__write_note", { text: "n" }]),
			textReply("done"),
		);
		const start = await startPrompt(agent, "go");
		const requests = await requestsAfter(agent, start);
		expect(requests.map((request) => [request.toolName, request.alwaysRule])).toEqual([
			["mcp__test__write_note", "mcp__test__write_note"],
		]);
		await respond(agent, requests[0]?.id, "allow");
		await agent.waitForEvent("agent_settled", () => true, start);
		expect(resultTexts(agent, start)).toEqual({
			e: { text: "hi", isError: false },
			w: { text: "noted: n", isError: false },
		});
		expect(agent.since(start, "tool_approval_request")).toHaveLength(1);
	});

	it("rules name MCP tools by a glob over the tool name; deny still wins", async () => {
		const { agent } = await startWithMcp({ allow: ["mcp__test__*"], deny: ["mcp__test__fail"] });
		harness.server.enqueue(
			toolCalls(["w", "mcp__test__write_note", { text: "n" }], ["f", "mcp__test__fail", { message: "x" }]),
			textReply("done"),
		);
		const { start } = await agent.prompt("go");
		expect(agent.since(start, "tool_approval_request")).toEqual([]);
		expect(resultTexts(agent, start)).toEqual({
			w: { text: "noted: n", isError: false },
			f: { text: "Denied by rule mcp__test__fail", isError: true },
		});
		expect((await approvalEntries(agent)).map((entry) => [entry.toolCallId, entry.decision, entry.rule])).toEqual([
			["w", "allow", "mcp__test__*"],
			["f", "deny", "mcp__test__fail"],
		]);
	});
});
