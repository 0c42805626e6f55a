/**
 * Pieces of the transcript tests: a record of every command a test sends, a model server that
 * answers planner requests (no tools) apart from conversation requests, and the final check of a
 * whole transcript against the schema.
 */
import { expect } from "vitest";
import { outputDefinitionName } from "../../src/rpc/protocol/schema-defs.js";
import { type LlmServer, type RecordedRequest, type ScriptedReply, textReply } from "../support/llm-server.js";
import type { RpcAgent, RpcRecord } from "../support/rpc-process.js";
import { type Failure, formatFailures, outputRecordProblems, schemaProblems } from "./schema-check.js";

/** Keeps every command object the agent sends (raw lines sent with sendRaw are not commands). */
export function recordCommands(agent: RpcAgent): Record<string, unknown>[] {
	const sent: Record<string, unknown>[] = [];
	const send = agent.send.bind(agent);
	agent.send = (command) => {
		sent.push(command);
		send(command);
	};
	return sent;
}

/** Planner and branch-summary requests offer no tools; conversation requests do. */
function isSideRequest(request: RecordedRequest): boolean {
	const body = request.body as { tools?: unknown[] } | undefined;
	return body?.tools === undefined || body.tools.length === 0;
}

export interface Script {
	/** Replies to conversation requests, in order; "ok" once they run out. */
	conversation: ScriptedReply[];
	/** Replies to side requests, in order; "1,10" once they run out. */
	side: ScriptedReply[];
}

export function scriptServer(server: LlmServer): Script {
	const script: Script = { conversation: [], side: [] };
	server.onRequest((request) => {
		if (isSideRequest(request)) return script.side.shift() ?? textReply("1,10\n");
		return script.conversation.shift() ?? textReply("ok");
	});
	return script;
}

/** Resolves once the agent is idle: no run, no queued follow-up still to come. */
export async function waitIdle(agent: RpcAgent): Promise<void> {
	for (;;) {
		const mark = agent.mark();
		const state = (await agent.ok({ type: "get_state" })) as { isStreaming: boolean };
		if (!state.isStreaming) return;
		await agent.waitForEvent("agent_settled", () => true, mark);
	}
}

/**
 * Checks every stdout record against `OutputRecord` and its own definition, and every command
 * sent against `InputRecord` (and `Command` unless it is a dialog answer). Fails with the records
 * and the complaints. Returns the names of the definitions the records matched.
 */
export function expectValidTranscript(records: readonly RpcRecord[], sent: readonly Record<string, unknown>[]) {
	const failures: Failure[] = [];
	const seen = new Set<string>();
	for (const record of records) {
		const problems = outputRecordProblems(record);
		if (problems.length > 0) failures.push({ record, problems });
		const name = outputDefinitionName(record);
		if (name) seen.add(name);
	}
	expect(failures, `stdout records that do not match the schema:\n${formatFailures(failures)}`).toEqual([]);
	const commandFailures: Failure[] = [];
	for (const command of sent) {
		const definitions = command.type === "extension_ui_response" ? ["InputRecord"] : ["Command", "InputRecord"];
		const problems = definitions.flatMap((name) => schemaProblems(name, command));
		if (problems.length > 0) commandFailures.push({ record: command, problems });
		seen.add(command.type === "extension_ui_response" ? "ExtensionUiResponse" : `command.${String(command.type)}`);
	}
	expect(commandFailures, `commands that do not match the schema:\n${formatFailures(commandFailures)}`).toEqual([]);
	return seen;
}

/** Fails with the names in `expected` that the transcript never matched. */
export function expectCovered(seen: ReadonlySet<string>, expected: readonly string[]): void {
	expect(expected.filter((name) => !seen.has(name))).toEqual([]);
}
