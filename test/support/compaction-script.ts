/**
 * Pieces of the compaction tests shared by the end-to-end and the in-process ones: telling
 * planner requests from conversation requests, reading the numbered transcript a planner
 * received, rebuilding the compacted text the agent must produce from it, and scripting replies
 * by the kind of request (a planner request can come between two conversation requests).
 */
import { type AnthropicBody, userMessageText } from "./anthropic-body.js";
import { type ScriptedReply, textReply } from "./llm-server.js";

/** The preamble context building puts before the compacted text (session/context.ts). */
export const COMPACTION_PREAMBLE =
	"Earlier parts of this conversation were compacted: what follows is the verbatim text of the lines that were kept, and each elided span appears as a line reading (filtered N lines).";

const ARROW = "\u2192";

/** Planner requests offer no tools and carry the numbered transcript; conversation requests offer tools. */
export function isPlannerBody(body: AnthropicBody): boolean {
	return (
		(body.tools === undefined || body.tools.length === 0) && userMessageText(body).includes("<numbered-transcript>")
	);
}

/** The transcript lines a planner request numbered (`N→text`), without their numbers; checks the numbering. */
export function numberedLines(body: AnthropicBody): string[] {
	const match = /<numbered-transcript>\n([\s\S]*?)\n<\/numbered-transcript>/.exec(userMessageText(body));
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

/** Answers a planner request (the loopback server's or an in-process call), given how many came before it. */
export type ReplyFor<Request> = (request: Request, index: number) => ScriptedReply;

/** How the model answers: mutable, so a test can change the planner's reply between steps. */
export interface RequestScript<Request> {
	/** Replies to conversation requests, in order; "ok" once they run out. */
	conversation: ScriptedReply[];
	/** Called with each planner request and how many planner requests came before it. */
	planner: ReplyFor<Request>;
}

/** A script and the handler that answers each request by its kind, for a server's or a stream's queue-less mode. */
export function routeByKind<Request>(
	isPlanner: (request: Request) => boolean,
	planner: ReplyFor<Request> = () => textReply("1,1\n"),
): { script: RequestScript<Request>; answer(request: Request): ScriptedReply } {
	const script: RequestScript<Request> = { conversation: [], planner };
	let plannerCount = 0;
	const answer = (request: Request) => {
		if (isPlanner(request)) return script.planner(request, plannerCount++);
		return script.conversation.shift() ?? textReply("ok");
	};
	return { script, answer };
}

/** A planner that holds its answer for `delayMs`; `arrived` resolves when its request comes in. */
export function heldPlanner<Request>(delayMs: number): { arrived: Promise<void>; planner: ReplyFor<Request> } {
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

/** Whether a record or event is one of compaction_* and summarization_retry_*. */
export function isCompactionRecord(record: { type: string }): boolean {
	return /^(compaction_|summarization_retry_)/.test(record.type);
}

/** The transcript text a user prompt and a text reply render to. */
export function turnText(prompt: string, reply: string): string {
	return `[User]: ${prompt}\n\n[Assistant]: ${reply}`;
}

/** The three replies of `threeTurns`: 12 lines each ("one line 1" ...), the third with `thirdReply`'s extras. */
export function threeReplies(thirdReply: Omit<ScriptedReply, "blocks"> = {}): ScriptedReply[] {
	return [textReply(manyLines("one")), textReply(manyLines("two")), textReply(manyLines("three"), thirdReply)];
}

/** The number of characters divided by four, rounded up: the estimate compaction stats use. */
export function tokensOf(text: string): number {
	return Math.ceil(text.length / 4);
}

export function percentReduction(before: number, after: number): number {
	return Math.round((1 - after / before) * 1000) / 10;
}
