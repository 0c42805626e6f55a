import type { AgentMessage } from "../agent/messages.js";
import type { ImageContent, TextContent } from "../llm/types.js";

export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function isTextOrImage(value: unknown): value is TextContent | ImageContent {
	if (!isRecord(value)) return false;
	if (value.type === "text") return typeof value.text === "string";
	return value.type === "image" && typeof value.data === "string" && typeof value.mimeType === "string";
}

export function isUserContent(value: unknown): value is string | (TextContent | ImageContent)[] {
	return typeof value === "string" || (Array.isArray(value) && value.every(isTextOrImage));
}

function isAssistantBlock(value: unknown): boolean {
	if (!isRecord(value)) return false;
	switch (value.type) {
		case "text":
			return typeof value.text === "string";
		case "thinking":
			return typeof value.thinking === "string";
		case "toolCall":
			return typeof value.id === "string" && typeof value.name === "string" && isRecord(value.arguments);
		default:
			return false;
	}
}

/**
 * Whether a parsed value is a message this layer can use. It checks the fields the session layer
 * and the transcript read (roles, content blocks, tool-call ids); other fields are trusted.
 */
export function isAgentMessage(value: unknown): value is AgentMessage {
	if (!isRecord(value)) return false;
	switch (value.role) {
		case "user":
			return isUserContent(value.content);
		case "assistant":
			return (
				Array.isArray(value.content) &&
				value.content.every(isAssistantBlock) &&
				typeof value.provider === "string" &&
				typeof value.model === "string" &&
				typeof value.stopReason === "string"
			);
		case "toolResult":
			return typeof value.toolCallId === "string" && Array.isArray(value.content) && value.content.every(isTextOrImage);
		case "custom":
			return typeof value.customType === "string" && isUserContent(value.content);
		case "bashExecution":
			return typeof value.command === "string" && typeof value.output === "string";
		case "branchSummary":
			return typeof value.summary === "string" && typeof value.fromId === "string";
		default:
			return false;
	}
}
