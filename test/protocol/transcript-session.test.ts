/**
 * Drives a varied session through the real CLI (prompts with text, images, thinking and a tool
 * call, steering, follow-ups, an abort, retries, direct bash, compaction, every query and session
 * command, invalid input) and checks every record it wrote, and every command sent, against the
 * RPC schema.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { COMMANDS, SERVER_ONLY_COMMANDS } from "../../src/rpc/protocol/commands.js";
import { startAgent, useRpcHarness, waitForFileCommand } from "../rpc/helpers.js";
import { textReply, toolReply } from "../support/llm-server.js";
import type { RpcAgent, RpcRecord } from "../support/rpc-process.js";
import { schemaProblems } from "./schema-check.js";
import {
	expectCovered,
	expectValidTranscript,
	recordCommands,
	type Script,
	scriptServer,
	waitIdle,
} from "./transcript.js";

const harness = useRpcHarness();
const FAST_RETRY = { retry: { enabled: true, maxRetries: 3, baseDelayMs: 10 } };
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/** Sends an object as a raw line (not recorded as a command) and resolves with its response. */
async function sendInvalid(agent: RpcAgent, record: Record<string, unknown>): Promise<RpcRecord> {
	const start = agent.mark();
	agent.sendRaw(`${JSON.stringify(record)}\n`);
	return agent.waitFor((candidate) => candidate.type === "response" && candidate.id === record.id, { start });
}

async function queries(agent: RpcAgent): Promise<void> {
	for (const type of [
		"get_state",
		"get_messages",
		"get_available_models",
		"get_available_thinking_levels",
		"get_commands",
		"get_session_stats",
		"get_last_assistant_text",
		"get_entries",
		"get_tree",
		"get_fork_messages",
		"get_mcp_servers",
		"list_sessions",
	]) {
		await agent.ok({ type });
	}
}

async function promptsAndTools(agent: RpcAgent, script: Script, gate: string): Promise<void> {
	script.conversation.push(textReply("Hello there, schema."));
	await agent.prompt("hello", { images: [{ type: "image", data: PNG, mimeType: "image/png" }] });

	await agent.ok({ type: "set_model", provider: "mock", modelId: "mock-reasoner" });
	await agent.ok({ type: "set_thinking_level", level: "high" });
	await agent.ok({ type: "cycle_thinking_level" });
	await agent.ok({ type: "set_thinking_level", level: "high" });
	script.conversation.push({
		blocks: [
			{ type: "thinking", text: "The user wants me to think hard.", chunks: 3 },
			{ type: "text", text: "Thought about it.", chunks: 2 },
		],
	});
	await agent.prompt("think");

	script.conversation.push(toolReply("bash", { command: "echo tool-output" }), textReply("tool done"));
	await agent.prompt("use a tool");

	// A run held inside a tool call, to queue steering and follow-ups while it streams.
	script.conversation.push(toolReply("bash", { command: waitForFileCommand(gate) }), textReply("after steering"));
	const start = agent.mark();
	await agent.ok({ type: "prompt", message: "wait for the gate" });
	await agent.waitForEvent("tool_execution_start", () => true, start);
	await agent.ok({ type: "set_steering_mode", mode: "all" });
	await agent.ok({ type: "set_follow_up_mode", mode: "one-at-a-time" });
	await agent.ok({ type: "follow_up", message: "dropped" });
	expect(await agent.ok({ type: "clear_queue" })).toEqual({ steering: [], followUp: ["dropped"] });
	await agent.ok({ type: "steer", message: "steer now" });
	await agent.ok({ type: "follow_up", message: "later" });
	await agent.ok({ type: "prompt", message: "queued prompt", streamingBehavior: "followUp" });
	const busy = await agent.request({ type: "prompt", message: "rejected while busy" });
	expect(busy.success).toBe(false);
	expect(await agent.ok({ type: "get_state" })).toMatchObject({ isStreaming: true });
	writeFileSync(gate, "");
	await waitIdle(agent);
}

/** A tool call asked about and allowed, then one asked about and answered after it was decided. */
async function approvals(agent: RpcAgent, script: Script): Promise<void> {
	await agent.ok({ type: "set_approval_mode", mode: "ask" });
	script.conversation.push(toolReply("bash", { command: "echo approved" }), textReply("approved"));
	const start = agent.mark();
	await agent.ok({ type: "prompt", message: "ask first" });
	const request = await agent.waitForEvent("tool_approval_request", () => true, start);
	await agent.ok({ type: "tool_approval_response", requestId: request.id, decision: "allow_always", message: "ok" });
	await agent.waitForEvent("tool_approval_resolved", () => true, start);
	await waitIdle(agent);
	expect(
		(await agent.request({ type: "tool_approval_response", requestId: request.id, decision: "deny" })).success,
	).toBe(false);
	await agent.ok({ type: "set_approval_mode", mode: "auto" });
	await agent.ok({ type: "set_sandbox_mode", mode: "read-only" });
	await agent.ok({ type: "set_sandbox_mode", mode: "off" });
}

async function abortAndRetry(agent: RpcAgent, script: Script): Promise<void> {
	script.conversation.push({
		blocks: [{ type: "text", text: "this reply never finishes", chunks: 5 }],
		fault: "stall",
		faultAfterFrames: 4,
	});
	const start = agent.mark();
	await agent.ok({ type: "prompt", message: "stall" });
	await agent.waitForEvent("message_update", () => true, start);
	await agent.ok({ type: "abort" });
	await waitIdle(agent);

	script.conversation.push({ status: 529 }, textReply("after retry"));
	const retried = await agent.prompt("retry me");
	expect(agent.since(retried.start, "auto_retry_end")).toHaveLength(1);
	await agent.ok({ type: "abort_retry" });
	await agent.ok({ type: "set_auto_retry", enabled: true });
}

async function directBash(agent: RpcAgent, gate: string): Promise<void> {
	await agent.ok({ id: "bash-channels", type: "bash", command: "printf 'out\\n'; printf 'err\\n' >&2" });
	const long = (await agent.ok({ id: "bash-long", type: "bash", command: "seq 1 20000" }, 30_000)) as {
		truncated: boolean;
		fullOutputPath?: string;
	};
	expect(long.truncated).toBe(true);
	expect(long.fullOutputPath).toBeDefined();
	await agent.ok({ type: "bash", command: "echo hidden", excludeFromContext: true });
	await agent.ok({ id: "user-bash", type: "user_bash", command: "echo via-user-bash" });
	const start = agent.mark();
	const slow = agent.request({ id: "bash-slow", type: "bash", command: `echo started; ${waitForFileCommand(gate)}` });
	await agent.waitForEvent("bash_execution_update", (record) => record.id === "bash-slow", start);
	await agent.ok({ type: "abort_bash", requestId: "bash-slow" });
	expect((await slow).data).toMatchObject({ cancelled: true });
	await agent.ok({ type: "abort_bash" });
	await agent.ok({ type: "get_messages" });
}

async function compaction(agent: RpcAgent, script: Script): Promise<void> {
	script.side.push({ status: 529 });
	const start = agent.mark();
	await agent.ok({ type: "compact" }, 20_000);
	expect(agent.since(start, "summarization_retry_finished")).toHaveLength(1);
	await agent.ok({ type: "get_messages" });
	await agent.ok({ type: "get_session_stats" });
	await agent.ok({ type: "abort_compaction" });
	await agent.ok({ type: "set_auto_compaction", enabled: false });
	await agent.ok({ type: "set_auto_compaction", enabled: true });
}

async function models(agent: RpcAgent): Promise<void> {
	await agent.ok({ type: "cycle_model" });
	await agent.ok({ type: "cycle_model", direction: "backward" });
	await agent.ok({ type: "logout_provider", provider: "mockoai" });
	await agent.ok({ type: "set_model", provider: "mock", modelId: "mock-reasoner" });
}

interface Entry {
	id: string;
	type: string;
}

async function sessions(agent: RpcAgent, exportDir: string): Promise<void> {
	const { sessionFile } = (await agent.ok({ type: "get_state" })) as { sessionFile: string };
	const { entries } = (await agent.ok({ type: "get_entries" })) as { entries: Entry[] };
	await agent.ok({ type: "get_entries", since: entries[0]?.id });
	await agent.ok({ type: "set_label", entryId: entries[0]?.id, label: "start" });
	await agent.ok({ type: "get_tree" });
	const { messages } = (await agent.ok({ type: "get_fork_messages" })) as { messages: { entryId: string }[] };
	await agent.ok({ type: "fork", entryId: messages[1]?.entryId });
	await agent.ok({ type: "clone" });
	await agent.ok({ type: "switch_session", sessionPath: sessionFile });
	// Leaving the branch with a summary: a branch_summary entry and message.
	await agent.ok({ type: "navigate_tree", targetId: messages[1]?.entryId, options: { summarize: true } }, 20_000);
	await agent.ok({ type: "get_messages" });
	await agent.ok({ type: "export_html", outputPath: join(exportDir, "session.html") });
	await agent.ok({ type: "pause_queued_messages" });
	await agent.ok({ type: "resume_queued_messages" });
	await agent.ok({ type: "new_session" });
	await agent.ok({ type: "import_session", inputPath: sessionFile });
	await queries(agent);
}

async function invalidInput(agent: RpcAgent): Promise<void> {
	const unknown = { id: "bad-1", type: "levitate" };
	const incomplete = { id: "bad-2", type: "set_model", provider: "mock" };
	for (const command of [unknown, incomplete]) {
		expect(schemaProblems("InputRecord", command).length).toBeGreaterThan(0);
		expect((await sendInvalid(agent, command)).success).toBe(false);
	}
	expect((await agent.request({ type: "get_entries", since: "no-such-entry" })).success).toBe(false);
	const start = agent.mark();
	agent.sendRaw("{not json\n");
	agent.sendRaw("[1, 2]\n");
	await agent.waitFor((record) => record.type === "response" && record.command === "unknown", { start });
	expect(agent.since(start, "response").map((record) => record.command)).toEqual(["parse", "unknown"]);
}

/** The message roles and streaming delta kinds the transcript carried. */
function expectVariety(records: readonly RpcRecord[]): void {
	const roles = new Set<string>();
	const deltas = new Set<string>();
	for (const record of records) {
		if (record.type === "message_update") deltas.add((record.assistantMessageEvent as { type: string }).type);
		const data = record.type === "response" ? (record.data as { messages?: unknown } | undefined) : undefined;
		const messages = record.type === "agent_end" ? record.messages : data?.messages;
		if (!Array.isArray(messages)) continue;
		for (const message of messages as { role?: unknown }[]) {
			if (typeof message.role === "string") roles.add(message.role);
		}
	}
	// custom: the compacted text comes back as a custom message.
	expect([...roles].sort()).toEqual(["assistant", "bashExecution", "branchSummary", "custom", "toolResult", "user"]);
	// No "start": Atomic folds it into message_start (the seed lists it as a delta kind).
	expect([...deltas].sort()).toEqual(
		[
			"done",
			"error",
			"text_delta",
			"text_end",
			"text_start",
			"thinking_delta",
			"thinking_end",
			"thinking_start",
			"toolcall_delta",
			"toolcall_end",
			"toolcall_start",
		].sort(),
	);
}

describe("recorded transcripts match the RPC schema", () => {
	it("a varied session with a session directory", { timeout: 120_000 }, async () => {
		const { agent, dirs } = await startAgent(harness.server, { sessions: true, settings: FAST_RETRY });
		const sent = recordCommands(agent);
		const script = scriptServer(harness.server);
		await agent.ok({ type: "set_session_name", name: "schema-tour" });
		await queries(agent);
		await promptsAndTools(agent, script, join(dirs.root, "gate-tool"));
		await approvals(agent, script);
		await abortAndRetry(agent, script);
		await directBash(agent, join(dirs.root, "gate-bash"));
		await compaction(agent, script);
		await models(agent);
		await sessions(agent, dirs.root);
		await invalidInput(agent);

		const seen = expectValidTranscript(agent.records, sent);
		expectCovered(seen, [
			"event.ready",
			"event.agent_start",
			"event.agent_end",
			"event.turn_start",
			"event.turn_end",
			"event.message_start",
			"event.message_update",
			"event.message_end",
			"event.tool_execution_start",
			"event.tool_execution_update",
			"event.tool_execution_end",
			"event.bash_execution_update",
			"event.queue_update",
			"event.compaction_start",
			"event.compaction_end",
			"event.auto_retry_start",
			"event.auto_retry_end",
			"event.summarization_retry_scheduled",
			"event.summarization_retry_attempt_start",
			"event.summarization_retry_finished",
			"event.agent_settled",
			"event.session_changed",
			"event.tool_approval_request",
			"event.tool_approval_resolved",
			"response.error",
			// attach and detach succeed only on atomic serve (test/server checks those records).
			...Object.keys(COMMANDS)
				.filter((type) => !SERVER_ONLY_COMMANDS.has(type))
				.map((type) => `response.${type}`),
		]);
		expectVariety(agent.records);
	});
});
