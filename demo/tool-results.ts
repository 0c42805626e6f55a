/** The texts of a content array (`[{type:"text", text}, ...]`, or a plain string). */
export function contentTexts(content: unknown): string[] {
	if (typeof content === "string") return [content];
	if (!Array.isArray(content)) return [];
	return content.flatMap((block: unknown) => {
		const { type, text } = (block ?? {}) as { type?: unknown; text?: unknown };
		return type === "text" && typeof text === "string" ? [text] : [];
	});
}

/** The texts of every `tool_result` block in an Anthropic Messages request body. */
export function requestToolResults(body: unknown): string[] {
	const messages = (body as { messages?: unknown } | undefined)?.messages;
	if (!Array.isArray(messages)) return [];
	return messages.flatMap((message: unknown) => {
		const content = (message as { content?: unknown } | undefined)?.content;
		if (!Array.isArray(content)) return [];
		return content.flatMap((block: unknown) => {
			const result = (block ?? {}) as { type?: unknown; content?: unknown };
			return result.type === "tool_result" ? contentTexts(result.content) : [];
		});
	});
}
