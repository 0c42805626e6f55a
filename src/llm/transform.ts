import type { AssistantMessage, ImageContent, Message, Model, TextContent, ToolResultMessage } from "./types.js";

export const IMAGE_OMITTED_TEXT = "(image omitted: this model does not accept images)";
export const MISSING_TOOL_RESULT_TEXT = "No result was recorded for this tool call.";

export interface PrepareOptions {
	/** Rewrites tool-call ids into the form the target provider accepts (applied to calls and results alike). */
	normalizeToolCallId?: (id: string) => string;
}

/**
 * Makes a conversation safe to send to `model`, whatever models produced it:
 * - assistant messages that ended in `error` or `aborted` are left out, with any results of their calls;
 * - replies from another model lose their signatures, and their thinking becomes plain text
 *   (redacted thinking is dropped), since signatures only verify with the model that made them;
 * - images become a short note when the model does not accept images;
 * - tool-call ids are normalised consistently for calls and results;
 * - a tool call left without a result gets a synthetic error result right after its message.
 */
export function prepareMessages(messages: readonly Message[], model: Model, options: PrepareOptions = {}): Message[] {
	const normalize = options.normalizeToolCallId ?? ((id: string) => id);
	const idMap = new Map<string, string>();
	const mapId = (id: string) => {
		let mapped = idMap.get(id);
		if (mapped === undefined) {
			mapped = normalize(id);
			idMap.set(id, mapped);
		}
		return mapped;
	};
	const acceptsImages = model.input.includes("image");
	const skippedCalls = new Set<string>();
	const out: Message[] = [];
	let pendingCalls: { id: string; name: string }[] = [];

	const flushPending = () => {
		for (const call of pendingCalls) out.push(syntheticResult(call.id, call.name));
		pendingCalls = [];
	};

	for (const message of messages) {
		if (message.role === "assistant") {
			flushPending();
			if (message.stopReason === "error" || message.stopReason === "aborted") {
				for (const block of message.content) if (block.type === "toolCall") skippedCalls.add(block.id);
				continue;
			}
			const converted = convertAssistant(message, model, mapId);
			if (converted.content.length === 0) continue;
			out.push(converted);
			pendingCalls = converted.content.flatMap((block) =>
				block.type === "toolCall" ? [{ id: block.id, name: block.name }] : [],
			);
		} else if (message.role === "toolResult") {
			if (skippedCalls.has(message.toolCallId)) continue;
			const id = mapId(message.toolCallId);
			const index = pendingCalls.findIndex((call) => call.id === id);
			if (index === -1) continue; // orphaned or duplicate result: no call is waiting for it
			pendingCalls.splice(index, 1);
			out.push({ ...message, toolCallId: id, content: convertContent(message.content, acceptsImages) });
		} else {
			flushPending();
			out.push(
				typeof message.content === "string"
					? message
					: { ...message, content: convertContent(message.content, acceptsImages) },
			);
		}
	}
	flushPending();
	return out;
}

function convertAssistant(message: AssistantMessage, model: Model, mapId: (id: string) => string): AssistantMessage {
	const sameModel = message.provider === model.provider && message.model === model.id && message.api === model.api;
	const content: AssistantMessage["content"] = [];
	for (const block of message.content) {
		if (block.type === "toolCall") {
			const { thoughtSignature, ...rest } = block;
			content.push(
				sameModel && thoughtSignature ? { ...block, id: mapId(block.id) } : { ...rest, id: mapId(block.id) },
			);
		} else if (block.type === "thinking") {
			if (sameModel) content.push(block);
			else if (!block.redacted && block.thinking.trim()) content.push({ type: "text", text: block.thinking });
		} else if (sameModel || !block.textSignature) {
			content.push(block);
		} else {
			content.push({ type: "text", text: block.text });
		}
	}
	return { ...message, content };
}

function convertContent(
	content: (TextContent | ImageContent)[],
	acceptsImages: boolean,
): (TextContent | ImageContent)[] {
	if (acceptsImages || !content.some((block) => block.type === "image")) return content;
	return content.map((block) => (block.type === "image" ? { type: "text", text: IMAGE_OMITTED_TEXT } : block));
}

function syntheticResult(toolCallId: string, toolName: string): ToolResultMessage {
	return {
		role: "toolResult",
		toolCallId,
		toolName,
		content: [{ type: "text", text: MISSING_TOOL_RESULT_TEXT }],
		isError: true,
		timestamp: Date.now(),
	};
}
