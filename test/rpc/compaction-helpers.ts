/**
 * Pieces of the end-to-end compaction tests over the loopback server's requests and an agent's
 * records; what they share with the in-process tests is in ../support/compaction-script.ts.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { userMessageText } from "../support/anthropic-body.js";
import {
	type Entry,
	isCompactionRecord,
	isPlannerBody,
	numberedLines,
	type ReplyFor as ReplyForRequest,
	routeByKind,
	type RequestScript as ScriptFor,
	threeReplies,
} from "../support/compaction-script.js";
import type { LlmServer, RecordedRequest, ScriptedReply } from "../support/llm-server.js";
import { type RpcAgent, type RpcRecord, testProviders } from "../support/rpc-process.js";
import { type AgentDirs, anthropicBody, type StartOptions } from "./helpers.js";

export {
	COMPACTION_PREAMBLE,
	deferred,
	type Entry,
	expectedCompaction,
	heldPlanner,
	manyLines,
	percentReduction,
	rangeRecords,
	tokensOf,
	turnText,
	userEntryId,
} from "../support/compaction-script.js";

/** Answers a planner request of the loopback server. */
export type ReplyFor = ReplyForRequest<RecordedRequest>;
/** How the loopback server answers, by the kind of request. */
export type RequestScript = ScriptFor<RecordedRequest>;

/** Start options that give the standard mock models this context window. */
export function withContextWindow(server: LlmServer, contextWindow: number, options: StartOptions = {}): StartOptions {
	return {
		...options,
		prepare(dirs: AgentDirs) {
			const providers = testProviders(server, contextWindow);
			writeFileSync(join(dirs.agentDir, "models.json"), JSON.stringify({ providers }, null, 2));
			options.prepare?.(dirs);
		},
	};
}

/** The text of every user message of an Anthropic request, joined. */
export function userText(request: RecordedRequest): string {
	return userMessageText(anthropicBody(request));
}

export function isPlannerRequest(request: RecordedRequest): boolean {
	return isPlannerBody(anthropicBody(request));
}

export function plannerRequests(server: LlmServer): RecordedRequest[] {
	return server.requests.filter(isPlannerRequest);
}

export function conversationRequests(server: LlmServer): RecordedRequest[] {
	return server.requests.filter((request) => !isPlannerRequest(request));
}

/** The transcript lines a planner request numbered (`N→text`), without their numbers. */
export function numberedTranscript(request: RecordedRequest): string[] {
	return numberedLines(anthropicBody(request));
}

/** Routes every request by its kind (the queue of the server itself is left empty). */
export function scriptServer(server: LlmServer, planner?: ReplyFor): RequestScript {
	const { script, answer } = routeByKind(isPlannerRequest, planner);
	server.onRequest(answer);
	return script;
}

export async function getEntries(agent: RpcAgent): Promise<{ entries: Entry[]; leafId: string | null }> {
	return (await agent.ok({ type: "get_entries" })) as { entries: Entry[]; leafId: string | null };
}

/** The compaction_* and summarization_retry_* records since `start`. */
export function compactionRecords(agent: RpcAgent, start: number): RpcRecord[] {
	return agent.since(start).filter(isCompactionRecord);
}

/** Three prompts ("first", "second", "third"), each answered with 12 lines ("one line 1" ...). */
export async function threeTurns(
	agent: RpcAgent,
	script: RequestScript,
	thirdReply: Omit<ScriptedReply, "blocks"> = {},
): Promise<void> {
	script.conversation.push(...threeReplies(thirdReply));
	await agent.prompt("first");
	await agent.prompt("second");
	await agent.prompt("third");
}
