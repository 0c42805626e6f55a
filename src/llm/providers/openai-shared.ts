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
