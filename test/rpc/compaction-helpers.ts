/**
 * Pieces of the end-to-end compaction tests: telling planner requests from conversation requests,
 * reading the numbered transcript a planner received, rebuilding the compacted text the agent
 * must produce from it, and scripting replies whose lines the planner can delete.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type LlmServer, type RecordedRequest, type ScriptedReply, textReply } from "../support/llm-server.js";
import { type RpcAgent, type RpcRecord, testProviders } from "../support/rpc-process.js";
import { type AgentDirs, anthropicBody, type StartOptions } from "./helpers.js";

/** The preamble context building puts before the compacted text (session/context.ts). */
export const COMPACTION_PREAMBLE =
	"Earlier parts of this conversation were compacted: what follows is the verbatim text of the lines that were kept, and each elided span appears as a line reading (filtered N lines).";

const ARROW = "\u2192";

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
	return anthropicBody(request)
		.messages.filter((message) => message.role === "user")
		.map((message) =>
			typeof message.content === "string"
				? message.content
				: message.content.map((block) => (block.type === "text" ? (block.text ?? "") : "")).join(""),
		)
		.join("\n");
}

/** Planner requests offer no tools and carry the numbered transcript; conversation requests offer tools. */
export function isPlannerRequest(request: RecordedRequest): boolean {
	const body = request.body as { tools?: unknown[] };
	return (body.tools === undefined || body.tools.length === 0) && userText(request).includes("<numbered-transcript>");
}

export function plannerRequests(server: LlmServer): RecordedRequest[] {
	return server.requests.filter(isPlannerRequest);
}

export function conversationRequests(server: LlmServer): RecordedRequest[] {
	return server.requests.filter((request) => !isPlannerRequest(request));
}

/** The transcript lines a planner request numbered (`N→text`), without their numbers; checks the numbering. */
export function numberedTranscript(request: RecordedRequest): string[] {
	const text = userText(request);
	const match = /<numbered-transcript>\n([\s\S]*?)\n<\/numbered-transcript>/.exec(text);
	if (!match?.[1]) throw new Error("the planner request has no numbered transcript");
	return match[1].split("\n").map((line, index) => {
		const prefix = `${index + 1}${ARROW}`;
		if (!line.startsWith(prefix)) throw new Error(`transcript line ${index + 1} is not numbered: ${line}`);
		return line.slice(prefix.length);
	});
}

export interface ExpectedCompaction {
	text: string;
	linesDeleted: number;
	rangeCount: number;
}

/**
 * What the kept lines and markers must be for non-overlapping, non-adjacent inclusive ranges over
 * lines without earlier markers: each range becomes one `(filtered N lines)` line.
 */
export function expectedCompaction(lines: readonly string[], ranges: readonly [number, number][]): ExpectedCompaction {
	const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
	const output: string[] = [];
	let next = 1;
	let linesDeleted = 0;
	for (const [start, end] of sorted) {
		output.push(...lines.slice(next - 1, start - 1));
		output.push(`(filtered ${end - start + 1} lines)`);
		linesDeleted += end - start + 1;
		next = end + 1;
	}
	output.push(...lines.slice(next - 1));
	return { text: output.join("\n"), linesDeleted, rangeCount: sorted.length };
}

/** `ranges` as the planner's reply text. */
export function rangeRecords(ranges: readonly [number, number][]): string {
	return ranges.map(([start, end]) => `${start},${end}\n`).join("");
}

/** A reply of `count` lines `<label> line <n>`. */
export function manyLines(label: string, count = 12): string {
	return Array.from({ length: count }, (_, index) => `${label} line ${index + 1}`).join("\n");
}

export type ReplyFor = (request: RecordedRequest, index: number) => ScriptedReply;

/** How the model server answers: mutable, so a test can change the planner's reply between steps. */
export interface RequestScript {
	/** Replies to conversation requests, in order; "ok" once they run out. */
	conversation: ScriptedReply[];
	/** Called with each planner request and how many planner requests came before it. */
	planner: ReplyFor;
}

/**
 * Routes every request by its kind (the queue of the server itself is left empty, because a
 * planner request can come between two conversation requests).
 */
export function scriptServer(server: LlmServer, planner: ReplyFor = () => textReply("1,1\n")): RequestScript {
	const script: RequestScript = { conversation: [], planner };
	let plannerCount = 0;
	server.onRequest((request) => {
		if (isPlannerRequest(request)) return script.planner(request, plannerCount++);
		return script.conversation.shift() ?? textReply("ok");
	});
	return script;
}

/** A planner that holds its answer for `delayMs`; `arrived` resolves when its request comes in. */
export function heldPlanner(delayMs: number): { arrived: Promise<void>; planner: ReplyFor } {
	const signal = deferred();
	const planner = () => {
		signal.resolve();
		return textReply("1,10\n", { headersDelayMs: delayMs });
	};
	return { arrived: signal.promise, planner };
}

/** A promise with its resolver, for "the planner request has arrived" signals. */
export function deferred(): { promise: Promise<void>; resolve(): void } {
	let resolve: () => void = () => undefined;
	const promise = new Promise<void>((done) => {
		resolve = done;
	});
	return { promise, resolve };
}

export interface Entry {
	type: string;
	id: string;
	parentId: string | null;
	message?: { role: string; content: unknown };
	summary?: string;
	firstKeptEntryId?: string | null;
	tokensBefore?: number;
	details?: Record<string, unknown>;
}

export async function getEntries(agent: RpcAgent): Promise<{ entries: Entry[]; leafId: string | null }> {
	return (await agent.ok({ type: "get_entries" })) as { entries: Entry[]; leafId: string | null };
}

/** The id of the user message entry whose text is `text`. */
export function userEntryId(entries: readonly Entry[], text: string): string {
	const entry = entries.find(
		(candidate) =>
			candidate.message?.role === "user" &&
			JSON.stringify(candidate.message.content) === JSON.stringify([{ type: "text", text }]),
	);
	if (!entry) throw new Error(`no user entry ${JSON.stringify(text)}`);
	return entry.id;
}

/** The compaction_* and summarization_retry_* records since `start`. */
export function compactionRecords(agent: RpcAgent, start: number): RpcRecord[] {
	return agent.since(start).filter((record) => /^(compaction_|summarization_retry_)/.test(record.type));
}

/** The transcript text a user prompt and a text reply render to. */
export function turnText(prompt: string, reply: string): string {
	return `[User]: ${prompt}\n\n[Assistant]: ${reply}`;
}

/** Three prompts ("first", "second", "third"), each answered with 12 lines ("one line 1" ...). */
export async function threeTurns(
	agent: RpcAgent,
	script: RequestScript,
	thirdReply: Omit<ScriptedReply, "blocks"> = {},
): Promise<void> {
	script.conversation.push(
		textReply(manyLines("one")),
		textReply(manyLines("two")),
		textReply(manyLines("three"), thirdReply),
	);
	await agent.prompt("first");
	await agent.prompt("second");
	await agent.prompt("third");
}

/** The number of characters divided by four, rounded up: the estimate compaction stats use. */
export function tokensOf(text: string): number {
	return Math.ceil(text.length / 4);
}

export function percentReduction(before: number, after: number): number {
	return Math.round((1 - after / before) * 1000) / 10;
}
