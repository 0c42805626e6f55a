import type { AssistantMessageEventStream } from "../../src/llm/event-stream.js";
import type { AssistantMessage, AssistantMessageEvent, UserMessage } from "../../src/llm/types.js";

/** Reads a stream to its end. */
export async function collectEvents(stream: AssistantMessageEventStream): Promise<AssistantMessageEvent[]> {
	const events: AssistantMessageEvent[] = [];
	for await (const event of stream) events.push(event);
	return events;
}

export function userMessage(content: UserMessage["content"]): UserMessage {
	return { role: "user", content, timestamp: 1 };
}

/** The final message of a finished event list (the last event must be `done` or `error`). */
export function finalMessage(events: readonly AssistantMessageEvent[]): AssistantMessage {
	const last = events[events.length - 1];
	if (last?.type !== "done" && last?.type !== "error") throw new Error(`stream did not end: ${last?.type}`);
	return last.message;
}

/** The JSON body the loopback server recorded, as a plain record. */
export function bodyOf(request: { body: unknown } | undefined): Record<string, unknown> {
	const body = request?.body;
	if (typeof body !== "object" || body === null) throw new Error("no JSON body recorded");
	return body as Record<string, unknown>;
}
