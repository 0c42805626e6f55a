import type {
	Content,
	FunctionDeclaration,
	GenerateContentConfig,
	GenerateContentParameters,
	Part,
} from "@google/genai";
import { prepareMessages } from "../transform.js";
import type {
	AssistantMessage,
	Context,
	ImageContent,
	Message,
	Model,
	StreamOptions,
	TextContent,
	ToolResultMessage,
} from "../types.js";
import { googleThinkingConfig } from "./google-thinking.js";

/** The parameters of `models.generateContentStream` for one request, without transport options. */
export interface GoogleRequest extends GenerateContentParameters {
	contents: Content[];
	config: GenerateContentConfig;
}

/** Builds the Gemini request: contents, system instruction, tools, output cap and thinking. */
export function buildGoogleRequest(model: Model, context: Context, options: StreamOptions = {}): GoogleRequest {
	const config: GenerateContentConfig = { maxOutputTokens: options.maxTokens ?? model.maxTokens };
	if (context.systemPrompt) config.systemInstruction = context.systemPrompt;
	if (options.temperature !== undefined) config.temperature = options.temperature;
	if (context.tools && context.tools.length > 0) {
		const functionDeclarations: FunctionDeclaration[] = context.tools.map((tool) => ({
			name: tool.name,
			description: tool.description,
			parametersJsonSchema: tool.parameters,
		}));
		config.tools = [{ functionDeclarations }];
	}
	const thinkingConfig = googleThinkingConfig(model, options);
	if (thinkingConfig) config.thinkingConfig = thinkingConfig;
	return { model: model.id, contents: toContents(prepareMessages(context.messages, model)), config };
}

/** Converts prepared messages; consecutive tool results share one user content, as Gemini expects. */
export function toContents(messages: readonly Message[]): Content[] {
	const contents: Content[] = [];
	let toolResults: Content | undefined;
	for (const message of messages) {
		if (message.role === "toolResult") {
			if (!toolResults) {
				toolResults = { role: "user", parts: [] };
				contents.push(toolResults);
			}
			toolResults.parts?.push(...toolResultParts(message));
			continue;
		}
		toolResults = undefined;
		const parts = message.role === "user" ? userParts(message.content) : assistantParts(message);
		if (parts.length > 0) contents.push({ role: message.role === "user" ? "user" : "model", parts });
	}
	return contents;
}

function userParts(content: string | (TextContent | ImageContent)[]): Part[] {
	if (typeof content === "string") return content.trim() ? [{ text: content }] : [];
	return content.flatMap((block): Part[] => {
		if (block.type === "image") return [imagePart(block)];
		return block.text.trim() ? [{ text: block.text }] : [];
	});
}

/**
 * Thinking and signatures here are only ever this model's own: prepareMessages already turned
 * other models' thinking into text and dropped their signatures.
 */
function assistantParts(message: AssistantMessage): Part[] {
	const parts: Part[] = [];
	for (const block of message.content) {
		if (block.type === "thinking") {
			if (block.redacted || (!block.thinking && !block.thinkingSignature)) continue;
			const part: Part = { thought: true, text: block.thinking };
			if (block.thinkingSignature) part.thoughtSignature = block.thinkingSignature;
			parts.push(part);
		} else if (block.type === "text") {
			if (!block.text && !block.textSignature) continue;
			const part: Part = { text: block.text };
			if (block.textSignature) part.thoughtSignature = block.textSignature;
			parts.push(part);
		} else {
			const part: Part = { functionCall: { id: block.id, name: block.name, args: block.arguments } };
			if (block.thoughtSignature) part.thoughtSignature = block.thoughtSignature;
			parts.push(part);
		}
	}
	return parts;
}

/** A function response, then the result's images as their own parts (Gemini's response is JSON only). */
function toolResultParts(message: ToolResultMessage): Part[] {
	const text = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
	const images = message.content.flatMap((block) => (block.type === "image" ? [imagePart(block)] : []));
	const output = text || (images.length > 0 ? "(image attached)" : "");
	const response = message.isError ? { error: output } : { output };
	return [{ functionResponse: { id: message.toolCallId, name: message.toolName, response } }, ...images];
}

function imagePart(image: ImageContent): Part {
	return { inlineData: { mimeType: image.mimeType, data: image.data } };
}
