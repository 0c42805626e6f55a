import type { ImageContent, TextContent } from "../types.js";

/** Introduces the user message that carries tool-result images (tool outputs cannot hold images). */
export const TOOL_IMAGES_TEXT = "Images returned by the tool calls above:";
/** The text of a tool output whose result is only images. */
export const IMAGE_ONLY_RESULT_TEXT = "(the result is an image, attached in the next message)";

export function dataUrl(image: ImageContent): string {
	return `data:${image.mimeType};base64,${image.data}`;
}

/** A tool result as the text of one tool output, and the images that must travel separately. */
export function splitToolResult(content: (TextContent | ImageContent)[]): { text: string; images: ImageContent[] } {
	const text = content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
	const images = content.filter((block): block is ImageContent => block.type === "image");
	return { text: text || (images.length > 0 ? IMAGE_ONLY_RESULT_TEXT : ""), images };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Error codes OpenAI puts in stream errors and failed responses, with the HTTP status they stand for. */
const STATUS_BY_ERROR_CODE: Record<string, number> = {
	rate_limit_exceeded: 429,
	insufficient_quota: 429,
	server_error: 500,
	vector_store_timeout: 500,
	invalid_prompt: 400,
	context_length_exceeded: 400,
	invalid_request_error: 400,
};

/** Prefixes a provider error message with the HTTP status its error code implies, when it implies one. */
export function withStatus(code: unknown, message: string): string {
	const status =
		typeof code === "number" && code >= 100 && code <= 599
			? code
			: typeof code === "string"
				? (STATUS_BY_ERROR_CODE[code] ?? numericStatus(code))
				: undefined;
	if (status === undefined || message.startsWith(`${status} `)) return message;
	return `${status} ${message}`;
}

function numericStatus(code: string): number | undefined {
	return /^[1-5]\d\d$/.test(code) ? Number(code) : undefined;
}
