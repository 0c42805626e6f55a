/**
 * In-process pieces of the automatic compaction tests: a session whose model has a small context
 * window, its scripted model answering planner calls and conversation calls apart (a planner call
 * can come between two conversation calls), read the way the end-to-end tests read the requests.
 */
import type { AnthropicBody } from "../support/anthropic-body.js";
import {
	isCompactionRecord,
	isPlannerBody,
	type ReplyFor,
	type RequestScript,
	routeByKind,
	threeReplies,
} from "../support/compaction-script.js";
import type { ScriptedCall } from "../support/scripted-stream.js";
import { PROVIDERS, runtimeTree, type Started, startSession } from "./helpers.js";

export type CallScript = RequestScript<ScriptedCall>;

/** A scripted call read as the request body the Anthropic provider would send for it. */
export function callBody(call: ScriptedCall | undefined): AnthropicBody {
	if (!call) throw new Error("the scripted model received no such call");
	return { model: call.model.id, max_tokens: 0, tools: call.context.tools, messages: call.context.messages };
}

export function isPlannerCall(call: ScriptedCall): boolean {
	return isPlannerBody(callBody(call));
}

/** A session on `fake/small` with this context window, its calls answered by kind. */
export function startCompacting(
	contextWindow: number,
	settings: Record<string, unknown>,
	planner?: ReplyFor<ScriptedCall>,
): Started & { script: CallScript } {
	const models = PROVIDERS.fake.models.map((model) => ({ ...model, contextWindow }));
	const tree = runtimeTree(settings, { ...PROVIDERS, fake: { ...PROVIDERS.fake, models } });
	const started = startSession({ tree });
	const { script, answer } = routeByKind(isPlannerCall, planner);
	started.stream.onCall(answer);
	return { ...started, script };
}

export function plannerCalls(started: Started): ScriptedCall[] {
	return started.stream.calls.filter(isPlannerCall);
}

export function conversationCalls(started: Started): ScriptedCall[] {
	return started.stream.calls.filter((call) => !isPlannerCall(call));
}

/** The compaction_* and summarization_retry_* events since `from`. */
export function compactionEvents(started: Started, from: number): Started["events"] {
	return started.events.slice(from).filter(isCompactionRecord);
}

/** The position of the first event of this type at or after `from`; throws when there is none. */
export function position(started: Started, from: number, type: string): number {
	const index = started.events.findIndex((event, at) => at >= from && event.type === type);
	if (index < 0) throw new Error(`no ${type} event`);
	return index;
}

/** Three prompts ("first", "second", "third"), each answered with 12 lines ("one line 1" ...). */
export async function threeTurns(started: Started & { script: CallScript }): Promise<void> {
	started.script.conversation.push(...threeReplies());
	await started.session.prompt("first");
	await started.session.prompt("second");
	await started.session.prompt("third");
}
