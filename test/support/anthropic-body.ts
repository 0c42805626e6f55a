/**
 * The Anthropic Messages request body as tests read it, and its messages as `role: text` lines:
 * the same reading for what the loopback server received (end-to-end tests) and for what the
 * provider would send for an in-process scripted call (runtime tests).
 */

export interface AnthropicBlock {
	type: string;
	text?: string;
	source?: { type: string; media_type: string; data: string };
	content?: unknown;
}

export interface AnthropicBody {
	model: string;
	max_tokens: number;
	thinking?: unknown;
	system?: { type: string; text: string }[];
	tools?: unknown[];
	messages: { role: string; content: string | AnthropicBlock[] }[];
}

/** Each message as `role: text` (text blocks joined; other blocks as `[type]`). */
export function messageLines(body: AnthropicBody): string[] {
	return body.messages.map((message) => {
		const content = message.content;
		const text =
			typeof content === "string"
				? content
				: content.map((block) => (block.type === "text" ? (block.text ?? "") : `[${block.type}]`)).join("");
		return `${message.role}: ${text}`;
	});
}

/** The text of every user message, joined by newlines. */
export function userMessageText(body: AnthropicBody): string {
	return body.messages
		.filter((message) => message.role === "user")
		.map((message) =>
			typeof message.content === "string"
				? message.content
				: message.content.map((block) => (block.type === "text" ? (block.text ?? "") : "")).join(""),
		)
		.join("\n");
}
