/**
 * Shared pieces of the end-to-end tool approval tests: agents started with a permissions block,
 * model replies that call tools (one or several at once), and readers for requests, decisions,
 * tool results and the audit entries.
 */
import { expect } from "vitest";
import type { LlmServer, ScriptedReply } from "../support/llm-server.js";
import type { RpcAgent, RpcRecord } from "../support/rpc-process.js";
import { type StartedAgent, type StartOptions, startAgent } from "./helpers.js";

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const OPTIONS = ["allow", "allow_always", "deny", "deny_always"];

/** Starts an agent whose user settings hold this permissions block. */
export function startWithPermissions(
	server: LlmServer,
	permissions: Record<string, unknown>,
	options: StartOptions = {},
): Promise<StartedAgent> {
	return startAgent(server, { ...options, settings: { ...options.settings, permissions } });
}

/** A reply that calls several tools at once (a parallel batch), with the ids given. */
export function toolCalls(...calls: [id: string, name: string, args: Record<string, unknown>][]): ScriptedReply {
	return { blocks: calls.map(([id, name, args]) => ({ type: "toolCall", id, name, arguments: args })) };
}

/** A reply that calls one tool, with this call id. */
export function toolCall(id: string, name: string, args: Record<string, unknown>): ScriptedReply {
	return toolCalls([id, name, args]);
}

/** Sends a prompt and waits for its acceptance only (the run goes on). */
export async function startPrompt(agent: RpcAgent, message: string): Promise<number> {
	const start = agent.mark();
	const response = await agent.request({ type: "prompt", message });
	expect(response.success, String(response.error)).toBe(true);
	return start;
}

/** Waits for the `count`-th approval request at or after `start`; returns every request so far. */
export async function requestsAfter(agent: RpcAgent, start: number, count = 1): Promise<RpcRecord[]> {
	await agent.waitFor(() => agent.since(start, "tool_approval_request").length >= count, {
		start,
		what: `${count} tool_approval_request event(s)`,
	});
	return agent.since(start, "tool_approval_request");
}

/** Answers a request and returns the response record. */
export function respond(agent: RpcAgent, requestId: unknown, decision: string, message?: string): Promise<RpcRecord> {
	return agent.request({ type: "tool_approval_response", requestId, decision, ...(message ? { message } : {}) });
}

/** The `tool_approval_resolved` events since `start`. */
export function resolvedSince(agent: RpcAgent, start: number): RpcRecord[] {
	return agent.since(start, "tool_approval_resolved");
}

/** The text of each tool result since `start`, by tool call id. */
export function resultTexts(agent: RpcAgent, start: number): Record<string, { text: string; isError: boolean }> {
	const results: Record<string, { text: string; isError: boolean }> = {};
	for (const record of agent.since(start, "tool_execution_end")) {
		const result = record.result as { content: { type: string; text?: string }[] };
		results[String(record.toolCallId)] = {
			text: result.content.map((block) => block.text ?? "").join(""),
			isError: record.isError === true,
		};
	}
	return results;
}

/** The session's `tool_approval` entries without their id, parent and timestamp. */
export async function approvalEntries(agent: RpcAgent): Promise<Record<string, unknown>[]> {
	const { entries } = (await agent.ok({ type: "get_entries" })) as { entries: RpcRecord[] };
	return entries
		.filter((entry) => entry.type === "tool_approval")
		.map(({ id: _id, parentId: _parentId, timestamp: _timestamp, ...rest }) => rest);
}
