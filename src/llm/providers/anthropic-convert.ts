import type {
	ContentBlockParam,
	ImageBlockParam,
	MessageParam,
	TextBlockParam,
	ToolResultBlockParam,
} from "@anthropic-ai/sdk/resources/messages";
import type { AssistantMessage, ImageContent, Message, TextContent, ToolResultMessage } from "../types.js";

const MAX_TOOL_CALL_ID_LENGTH = 64;

type ImageMediaType = Extract<ImageBlockParam["source"], { type: "base64" }>["media_type"];

/** Anthropic accepts tool-use ids matching ^[a-zA-Z0-9_-]{1,64}$; other providers' ids may not. */
export function normalizeAnthropicToolCallId(id: string): string {
	const cleaned = id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, MAX_TOOL_CALL_ID_LENGTH);
	return cleaned.length > 0 ? cleaned : "tool_call";
}

/**
 * Converts already prepared messages (see prepareMessages) into Anthropic message params.
 * Consecutive tool results become one user message of `tool_result` blocks, and the last block of
 * the last user message carries a cache breakpoint so the conversation prefix is cached.
 */
/** `cache: false` leaves out the prompt-caching marker (one-off requests such as compaction planning). */
export function convertMessages(messages: readonly Message[], options: { cache?: boolean } = {}): MessageParam[] {
	const params: MessageParam[] = [];
	for (let index = 0; index < messages.length; index++) {
		const message = messages[index] as Message;
		if (message.role === "user") {
			const content = convertUserContent(message.content);
			if (content.length > 0) params.push({ role: "user", content });
		} else if (message.role === "assistant") {
			const content = convertAssistantContent(message);
			if (content.length > 0) params.push({ role: "assistant", content });
		} else {
			const results: ToolResultBlockParam[] = [convertToolResult(message)];
			while (messages[index + 1]?.role === "toolResult") {
				index++;
				results.push(convertToolResult(messages[index] as ToolResultMessage));
			}
			params.push({ role: "user", content: results });
		}
	}
	if (options.cache !== false) markLastUserBlockForCaching(params);
	return params;
}

function convertUserContent(content: string | (TextContent | ImageContent)[]): (TextBlockParam | ImageBlockParam)[] {
	if (typeof content === "string") return content.trim() ? [{ type: "text", text: content }] : [];
	return convertTextAndImages(content);
}

/** Empty text blocks are dropped: the API rejects them. */
function convertTextAndImages(content: readonly (TextContent | ImageContent)[]): (TextBlockParam | ImageBlockParam)[] {
	const blocks: (TextBlockParam | ImageBlockParam)[] = [];
	for (const block of content) {
		if (block.type === "text") {
			if (block.text.trim()) blocks.push({ type: "text", text: block.text });
		} else {
			blocks.push(convertImage(block));
		}
	}
	return blocks;
}

function convertImage(image: ImageContent): ImageBlockParam {
	// Any other media type is sent as is: the API's own error names the problem best.
	const mediaType = image.mimeType as ImageMediaType;
	return { type: "image", source: { type: "base64", media_type: mediaType, data: image.data } };
}

function convertAssistantContent(message: AssistantMessage): ContentBlockParam[] {
	const blocks: ContentBlockParam[] = [];
	for (const block of message.content) {
		if (block.type === "text") {
			if (block.text.trim()) blocks.push({ type: "text", text: block.text });
		} else if (block.type === "thinking") {
			if (block.redacted) {
				if (block.thinkingSignature) blocks.push({ type: "redacted_thinking", data: block.thinkingSignature });
			} else if (block.thinkingSignature) {
				blocks.push({ type: "thinking", thinking: block.thinking, signature: block.thinkingSignature });
			} else if (block.thinking.trim()) {
				// Unsigned thinking (e.g. from an interrupted stream) cannot be verified; keep it as text.
				blocks.push({ type: "text", text: block.thinking });
			}
		} else {
			blocks.push({ type: "tool_use", id: block.id, name: block.name, input: block.arguments });
		}
	}
	return blocks;
}

function convertToolResult(message: ToolResultMessage): ToolResultBlockParam {
	const content = convertTextAndImages(message.content);
	return {
		type: "tool_result",
		tool_use_id: message.toolCallId,
		...(content.length > 0 ? { content } : {}),
		is_error: message.isError,
	};
}

function markLastUserBlockForCaching(params: MessageParam[]): void {
	for (let index = params.length - 1; index >= 0; index--) {
		const param = params[index];
		if (param?.role !== "user") continue;
		if (typeof param.content === "string") {
			param.content = [{ type: "text", text: param.content, cache_control: { type: "ephemeral" } }];
			return;
		}
		const last = param.content[param.content.length - 1];
		if (last && canCarryCacheControl(last)) last.cache_control = { type: "ephemeral" };
		return;
	}
}

function canCarryCacheControl(
	block: ContentBlockParam,
): block is TextBlockParam | ImageBlockParam | ToolResultBlockParam {
	return block.type === "text" || block.type === "image" || block.type === "tool_result";
}
