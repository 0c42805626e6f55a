import type {
	FunctionTool,
	ResponseCreateParamsStreaming,
	ResponseInputContent,
	ResponseInputItem,
	ResponseReasoningItem,
} from "openai/resources/responses/responses";
import type { ReasoningEffort } from "openai/resources/shared";
import { mappedThinkingValue } from "../thinking.js";
import { prepareMessages } from "../transform.js";
import type { AssistantMessage, Context, ImageContent, Model, StreamOptions, TextContent, Tool } from "../types.js";
import { dataUrl, isRecord, splitToolResult, TOOL_IMAGES_TEXT } from "./openai-shared.js";

/** OpenAI limits call ids to 64 characters. */
const MAX_CALL_ID = 64;

/** Builds the streaming Responses body for one request. Pure: no I/O. */
export function buildResponsesRequest(
	model: Model,
	context: Context,
	options: StreamOptions,
): ResponseCreateParamsStreaming {
	const isOpenAI = model.provider === "openai";
	const request: ResponseCreateParamsStreaming = {
		model: model.id,
		input: convertInput(model, context),
		stream: true,
		// Nothing is kept server-side: reasoning is carried back as encrypted content instead.
		store: false,
	};
	if (context.systemPrompt) request.instructions = context.systemPrompt;
	if (options.maxTokens !== undefined) request.max_output_tokens = options.maxTokens;
	if (options.temperature !== undefined) request.temperature = options.temperature;
	if (context.tools?.length) request.tools = context.tools.map(convertTool);
	if (isOpenAI && options.sessionId && options.cacheRetention !== "none") request.prompt_cache_key = options.sessionId;
	if (model.reasoning) {
		const level = options.reasoning ?? "off";
		// The SDK's type lists OpenAI's efforts; a model's map may name values other servers accept.
		if (level !== "off") {
			request.reasoning = { effort: mappedThinkingValue(model, level) as ReasoningEffort, summary: "auto" };
			request.include = ["reasoning.encrypted_content"];
		} else if (isOpenAI) {
			// OpenAI reasoning models think by default; "off" has to be asked for.
			request.reasoning = { effort: (model.thinkingLevelMap?.off ?? "none") as ReasoningEffort };
		}
	}
	return request;
}

function convertInput(model: Model, context: Context): ResponseInputItem[] {
	const out: ResponseInputItem[] = [];
	// Tool outputs are sent as text; their images follow in one user message after the run of outputs.
	let pendingImages: ImageContent[] = [];
	const flushImages = () => {
		if (pendingImages.length === 0) return;
		out.push({
			role: "user",
			content: [{ type: "input_text", text: TOOL_IMAGES_TEXT }, ...pendingImages.map(inputImage)],
		});
		pendingImages = [];
	};
	for (const message of prepareMessages(context.messages, model, { normalizeToolCallId })) {
		if (message.role === "toolResult") {
			const { text, images } = splitToolResult(message.content);
			out.push({ type: "function_call_output", call_id: splitToolCallId(message.toolCallId).callId, output: text });
			pendingImages.push(...images);
			continue;
		}
		flushImages();
		if (message.role === "user") {
			out.push({ role: "user", content: convertUserContent(message.content) });
		} else {
			out.push(...convertAssistant(message, model));
		}
	}
	flushImages();
	return out;
}

function convertUserContent(content: string | (TextContent | ImageContent)[]): ResponseInputContent[] {
	if (typeof content === "string") return [{ type: "input_text", text: content }];
	return content.map((block) => (block.type === "text" ? { type: "input_text", text: block.text } : inputImage(block)));
}

function convertAssistant(message: AssistantMessage, model: Model): ResponseInputItem[] {
	// Item ids and reasoning items only verify with the model that produced them.
	const sameModel = message.provider === model.provider && message.model === model.id && message.api === model.api;
	const items: ResponseInputItem[] = [];
	for (const block of message.content) {
		if (block.type === "thinking") {
			const reasoning = sameModel ? parseReasoningItem(block.thinkingSignature) : undefined;
			if (reasoning) items.push(reasoning);
		} else if (block.type === "text") {
			if (!block.text) continue;
			items.push(
				block.textSignature
					? {
							type: "message",
							role: "assistant",
							id: block.textSignature,
							status: "completed",
							content: [{ type: "output_text", text: block.text, annotations: [] }],
						}
					: { type: "message", role: "assistant", content: block.text },
			);
		} else {
			const { callId, itemId } = splitToolCallId(block.id);
			items.push({
				type: "function_call",
				call_id: callId,
				name: block.name,
				arguments: JSON.stringify(block.arguments),
				...(sameModel && itemId ? { id: itemId } : {}),
			});
		}
	}
	return items;
}

/** The reasoning item stored as JSON in a thinking block's signature, reduced to what the API takes back. */
function parseReasoningItem(signature: string | undefined): ResponseReasoningItem | undefined {
	if (!signature) return undefined;
	let parsed: unknown;
	try {
		parsed = JSON.parse(signature);
	} catch (error) {
		// A signature from elsewhere (not a stored item): the reasoning cannot be replayed, so leave it out.
		if (error instanceof SyntaxError) return undefined;
		throw error;
	}
	if (!isRecord(parsed) || parsed.type !== "reasoning" || typeof parsed.id !== "string") return undefined;
	const item: ResponseReasoningItem = {
		type: "reasoning",
		id: parsed.id,
		summary: Array.isArray(parsed.summary) ? (parsed.summary as ResponseReasoningItem["summary"]) : [],
	};
	if (typeof parsed.encrypted_content === "string") item.encrypted_content = parsed.encrypted_content;
	return item;
}

function convertTool(tool: Tool): FunctionTool {
	return {
		type: "function",
		name: tool.name,
		description: tool.description,
		parameters: { ...tool.parameters },
		strict: false,
	};
}

function inputImage(image: ImageContent): ResponseInputContent {
	return { type: "input_image", detail: "auto", image_url: dataUrl(image) };
}

/** Our tool-call id for this api is `<call_id>|<item_id>`; ids from other providers have no `|`. */
export function splitToolCallId(id: string): { callId: string; itemId?: string } {
	const separator = id.indexOf("|");
	if (separator === -1) return { callId: id };
	return { callId: id.slice(0, separator), itemId: id.slice(separator + 1) || undefined };
}

/** Keeps our `<call_id>|<item_id>` ids intact; makes other providers' ids acceptable as call ids. */
function normalizeToolCallId(id: string): string {
	if (id.includes("|")) return id;
	return id.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, MAX_CALL_ID);
}
