import type { ImageContent, Model, UserMessage } from "../../llm/types.js";

/** A user message: the text block first, then the images. */
export function userMessage(text: string, images: ImageContent[] | undefined): UserMessage {
	if (!images?.length) return { role: "user", content: [{ type: "text", text }], timestamp: Date.now() };
	return { role: "user", content: [{ type: "text", text }, ...images], timestamp: Date.now() };
}

/** Stands in for the loop's model while none is selected; prompts are refused before it is used. */
export function placeholderModel(): Model {
	return {
		id: "none",
		name: "No model",
		api: "anthropic-messages",
		provider: "none",
		baseUrl: "",
		reasoning: false,
		input: ["text"],
		contextWindow: 0,
		maxTokens: 0,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
	};
}
