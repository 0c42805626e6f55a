import type { AssistantMessage } from "../llm/types.js";

type Content = AssistantMessage["content"];

/** A tool call that runs: as its `tool_execution_start` named it, with its output so far. */
export interface ToolUnderWay {
	toolCallId: string;
	toolName: string;
	args: Record<string, unknown>;
	/** The last `tool_execution_update`'s `partialResult`. */
	partialResult?: unknown;
}

/**
 * What a session of `atomic serve` streams as of an event's `seq` (`inProgress` of `attach`'s
 * answer and of `resync`): the reply so far, built from the deltas sent up to that `seq` (the
 * deltas after it continue it, none twice), and the tool calls that run.
 */
export interface InProgress {
	message?: AssistantMessage;
	tools: ToolUnderWay[];
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown): string {
	return typeof value === "string" ? value : "";
}

/**
 * Applies one `message_update` delta, in its wire form (wire-events.ts), to the content of the
 * reply it builds. Each block's `*_start` (re)sets it, so a reply begun from `message_start` with
 * no content holds what was streamed, nothing twice; a delta for a block whose start was not seen
 * makes the block. A tool call's arguments are known from its `toolcall_end`. What it does not
 * recognise (it reads the wire) is left alone.
 */
export function applyReplyDelta(content: Content, delta: unknown): void {
	if (!isObject(delta)) return;
	const index = typeof delta.contentIndex === "number" && delta.contentIndex >= 0 ? delta.contentIndex : undefined;
	if (index === undefined) return;
	const block = content[index];
	switch (delta.type) {
		case "text_start":
			content[index] = { type: "text", text: "" };
			break;
		case "text_delta":
			if (block?.type === "text") block.text += text(delta.delta);
			else content[index] = { type: "text", text: text(delta.delta) };
			break;
		case "text_end":
			if (typeof delta.content === "string") content[index] = { type: "text", text: delta.content };
			break;
		case "thinking_start":
			content[index] = { type: "thinking", thinking: "" };
			break;
		case "thinking_delta":
			if (block?.type === "thinking") block.thinking += text(delta.delta);
			else content[index] = { type: "thinking", thinking: text(delta.delta) };
			break;
		case "thinking_end":
			if (typeof delta.content === "string") content[index] = { type: "thinking", thinking: delta.content };
			break;
		case "toolcall_start":
			content[index] = { type: "toolCall", id: text(delta.id), name: text(delta.toolName), arguments: {} };
			break;
		case "toolcall_end": {
			const call = delta.toolCall;
			if (!isObject(call)) break;
			const args = isObject(call.arguments) ? call.arguments : {};
			content[index] = { type: "toolCall", id: text(call.id), name: text(call.name), arguments: args };
			break;
		}
	}
	// A block whose start came before the reader began is a hole until its end: an empty text.
	for (let at = 0; at < content.length; at++) content[at] ??= { type: "text", text: "" };
}
