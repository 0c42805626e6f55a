import type {
	ChatCompletionContentPart,
	ChatCompletionCreateParamsStreaming,
	ChatCompletionMessageParam,
	ChatCompletionMessageToolCall,
	ChatCompletionTool,
	ChatCompletionToolMessageParam,
} from "openai/resources/chat/completions";
import type { ReasoningEffort } from "openai/resources/shared";
import { mappedThinkingValue } from "../thinking.js";
import { prepareMessages } from "../transform.js";
import type {
	AssistantMessage,
	Context,
	ImageContent,
	Message,
	Model,
	ModelCompat,
	StreamOptions,
	TextContent,
	ThinkingContent,
	Tool,
} from "../types.js";
import type { ReasoningField } from "./openai-completions-reader.js";
import { dataUrl, splitToolResult, TOOL_IMAGES_TEXT } from "./openai-shared.js";

/** The request body, with the fields OpenAI-compatible servers add next to OpenAI's own. */
export type CompletionsRequest = ChatCompletionCreateParamsStreaming & {
	/** OpenRouter. */
	reasoning?: { effort: string };
	/** Qwen (DashScope, vLLM chat templates). */
	enable_thinking?: boolean;
};

type ToolMessage = ChatCompletionToolMessageParam & { name?: string };

/** An assistant message with the reasoning field compatible servers read back. */
type AssistantParam = ChatCompletionMessageParam & { reasoning_content?: string; reasoning?: string };

/** OpenAI limits tool-call ids to 40 characters. */
const MAX_TOOL_CALL_ID = 40;

/** Builds the streaming Chat Completions body for one request. Pure: no I/O. */
export function buildCompletionsRequest(model: Model, context: Context, options: StreamOptions): CompletionsRequest {
	const compat = model.compat ?? {};
	const isOpenAI = model.provider === "openai";
	const request: CompletionsRequest = {
		model: model.id,
		messages: convertMessages(model, context),
		stream: true,
	};
	if (compat.supportsUsageInStreaming !== false) request.stream_options = { include_usage: true };
	if (options.maxTokens !== undefined) {
		const field = compat.maxTokensField ?? (isOpenAI ? "max_completion_tokens" : "max_tokens");
		request[field] = options.maxTokens;
	}
	if (options.temperature !== undefined) request.temperature = options.temperature;
	if (context.tools?.length) request.tools = context.tools.map(convertTool);
	if (compat.supportsStore ?? isOpenAI) request.store = false;
	if (isOpenAI && options.sessionId && options.cacheRetention !== "none") request.prompt_cache_key = options.sessionId;
	if (model.reasoning) applyReasoning(model, options, request);
	return request;
}

/**
 * Reasoning parameters by `compat.thinkingFormat`. At "off" nothing is sent unless the model maps
 * "off" to a provider value (e.g. `reasoning_effort: "none"`); Qwen gets `enable_thinking: false`.
 */
function applyReasoning(model: Model, options: StreamOptions, request: CompletionsRequest): void {
	const compat = model.compat ?? {};
	const level = options.reasoning ?? "off";
	const mappedOff = model.thinkingLevelMap?.off;
	const effort =
		level !== "off" ? mappedThinkingValue(model, level) : typeof mappedOff === "string" ? mappedOff : undefined;
	switch (compat.thinkingFormat ?? "reasoning_effort") {
		case "reasoning_effort":
			// The SDK's type lists OpenAI's efforts; a model's map may name values other servers accept.
			if (effort !== undefined && compat.supportsReasoningEffort !== false) {
				request.reasoning_effort = effort as ReasoningEffort;
			}
			break;
		case "openrouter":
			if (effort !== undefined) request.reasoning = { effort };
			break;
		case "qwen":
			request.enable_thinking = level !== "off";
			break;
		case "none":
			break;
	}
}

function convertMessages(model: Model, context: Context): ChatCompletionMessageParam[] {
	const compat = model.compat ?? {};
	const out: ChatCompletionMessageParam[] = [];
	if (context.systemPrompt) {
		const developer = model.reasoning && (compat.supportsDeveloperRole ?? model.provider === "openai");
		out.push({ role: developer ? "developer" : "system", content: context.systemPrompt });
	}
	// Tool messages cannot carry images: they go into one user message after the run of results.
	let pendingImages: ImageContent[] = [];
	const flushImages = () => {
		if (pendingImages.length === 0) return;
		out.push({ role: "user", content: [{ type: "text", text: TOOL_IMAGES_TEXT }, ...pendingImages.map(imagePart)] });
		pendingImages = [];
	};
	const prepared = prepareMessages(context.messages, model, { normalizeToolCallId });
	const replay = reasoningReplay(prepared, compat.sendReasoning);
	for (const [position, message] of prepared.entries()) {
		if (message.role === "toolResult") {
			const { text, images } = splitToolResult(message.content);
			const toolMessage: ToolMessage = { role: "tool", tool_call_id: message.toolCallId, content: text };
			if (compat.requiresToolResultName) toolMessage.name = message.toolName;
			out.push(toolMessage);
			pendingImages.push(...images);
			continue;
		}
		flushImages();
		if (message.role === "user") {
			out.push({ role: "user", content: convertUserContent(message.content) });
		} else {
			const assistant = convertAssistant(message, compat.requiresThinkingAsText === true, replay.has(position));
			if (assistant) out.push(assistant);
		}
	}
	flushImages();
	return out;
}

function convertUserContent(content: string | (TextContent | ImageContent)[]): string | ChatCompletionContentPart[] {
	if (typeof content === "string") return content;
	// Text-only content goes as a plain string, which every compatible server accepts.
	if (!content.some((block) => block.type === "image")) return joinText(content, "\n");
	return content.map((block) => (block.type === "text" ? { type: "text", text: block.text } : imagePart(block)));
}

/**
 * The positions of the assistant messages whose reasoning goes back (`compat.sendReasoning`):
 * the replies since the last user message (the running tool loop), every reply of a user turn
 * that called tools, or every reply.
 */
function reasoningReplay(messages: readonly Message[], mode: ModelCompat["sendReasoning"]): Set<number> {
	const positions = new Set<number>();
	if (!mode) return positions;
	let turn: number[] = [];
	let turnCalledTools = false;
	const closeTurn = (last: boolean) => {
		if (mode === "always" || (mode === "tool-turns" && turnCalledTools) || (mode === "tool-loop" && last)) {
			for (const position of turn) positions.add(position);
		}
		turn = [];
		turnCalledTools = false;
	};
	messages.forEach((message, position) => {
		if (message.role === "user") closeTurn(false);
		else if (message.role === "assistant") {
			turn.push(position);
			if (message.content.some((block) => block.type === "toolCall")) turnCalledTools = true;
		}
	});
	closeTurn(true);
	return positions;
}

function convertAssistant(
	message: AssistantMessage,
	thinkingAsText: boolean,
	sendReasoning: boolean,
): ChatCompletionMessageParam | undefined {
	// Reasoning goes back in the field it came in; thinking of other models was made text already.
	const reasoning = sendReasoning ? replayedReasoning(message) : undefined;
	const text = message.content
		.map((block) => {
			if (block.type === "text") return block.text;
			if (block.type === "thinking" && thinkingAsText && !reasoning && !block.redacted) return block.thinking;
			return "";
		})
		.join("");
	const toolCalls: ChatCompletionMessageToolCall[] = message.content.flatMap((block) =>
		block.type === "toolCall"
			? [{ id: block.id, type: "function", function: { name: block.name, arguments: JSON.stringify(block.arguments) } }]
			: [],
	);
	if (!text && toolCalls.length === 0) return undefined;
	const param: AssistantParam =
		toolCalls.length > 0
			? { role: "assistant", content: text || null, tool_calls: toolCalls }
			: { role: "assistant", content: text };
	if (reasoning) param[reasoning.field] = reasoning.text;
	return param;
}

/** The reasoning of a reply streamed as `reasoning_content` or `reasoning`, with that field's name. */
function replayedReasoning(message: AssistantMessage): { field: ReasoningField; text: string } | undefined {
	const blocks = message.content.filter(
		(block): block is ThinkingContent => block.type === "thinking" && !block.redacted && block.thinking !== "",
	);
	const field = blocks.find((block) => isReasoningField(block.thinkingSignature))?.thinkingSignature;
	if (!isReasoningField(field)) return undefined;
	return { field, text: blocks.map((block) => block.thinking).join("\n") };
}

function isReasoningField(value: string | undefined): value is ReasoningField {
	return value === "reasoning_content" || value === "reasoning";
}

function convertTool(tool: Tool): ChatCompletionTool {
	return {
		type: "function",
		function: { name: tool.name, description: tool.description, parameters: { ...tool.parameters } },
	};
}

function imagePart(image: ImageContent): ChatCompletionContentPart {
	return { type: "image_url", image_url: { url: dataUrl(image) } };
}

function joinText(content: (TextContent | ImageContent)[], separator: string): string {
	return content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join(separator);
}

/**
 * Ids from the Responses API read `<call_id>|<item_id>`, and other providers use characters or
 * lengths OpenAI rejects: keep the call id, limited to safe characters and 40 characters.
 */
export function normalizeToolCallId(id: string): string {
	const callId = id.split("|", 1)[0] ?? id;
	return callId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, MAX_TOOL_CALL_ID);
}
