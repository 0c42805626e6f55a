import { type AgentMessage, convertToLlm } from "../agent/messages.js";
import type { AssistantMessage, ImageContent, TextContent } from "../llm/types.js";

/**
 * "compacted": the plain-text form a planner reads (long tool output cut, images as `[image]`).
 * "retained": the form a kept tail is replayed in (full text, image blocks in place).
 */
export type TranscriptMode = "compacted" | "retained";

export type TranscriptBlock = TextContent | ImageContent;

export const TRANSCRIPT_HEADERS = {
	user: "[User]: ",
	thinking: "[Assistant thinking]: ",
	assistant: "[Assistant]: ",
	toolCalls: "[Assistant tool calls]: ",
	toolResult: "[Tool result]: ",
} as const;

/** Tool-result text chunks longer than this are cut in compacted mode. */
export const TOOL_RESULT_TEXT_LIMIT = 16_000;

/** Text and image blocks, with adjacent text merged. */
class BlockList {
	readonly blocks: TranscriptBlock[] = [];

	text(text: string): void {
		if (!text) return;
		const last = this.blocks.at(-1);
		if (last?.type === "text") last.text += text;
		else this.blocks.push({ type: "text", text });
	}

	image(image: ImageContent): void {
		this.blocks.push(image);
	}

	append(blocks: readonly TranscriptBlock[]): void {
		for (const block of blocks) {
			if (block.type === "text") this.text(block.text);
			else this.image(block);
		}
	}

	endsWithNewline(): boolean {
		const last = this.blocks.at(-1);
		return last?.type === "text" && last.text.endsWith("\n");
	}
}

/**
 * Renders messages in the transcript grammar (§5.4): sections `[User]: `, `[Assistant thinking]: `,
 * `[Assistant]: `, `[Assistant tool calls]: `, `[Tool result]: `, joined by a blank line. Messages go
 * through `convertToLlm` first, so custom, bash and branch-summary messages appear as `[User]: `.
 * Compacted mode returns the text; retained mode returns blocks, because images stay images.
 */
export function renderTranscript(messages: readonly AgentMessage[], mode: "compacted"): string;
export function renderTranscript(messages: readonly AgentMessage[], mode: "retained"): TranscriptBlock[];
export function renderTranscript(messages: readonly AgentMessage[], mode: TranscriptMode): string | TranscriptBlock[] {
	const out = new BlockList();
	let first = true;
	for (const message of convertToLlm(messages)) {
		for (const [header, content] of sectionsOf(message, mode)) {
			const trimmed = withoutTrailingNewline(content);
			if (trimmed.length === 0) continue;
			if (!first) out.text("\n\n");
			first = false;
			out.text(header);
			out.append(trimmed);
		}
	}
	if (mode === "retained") return out.blocks;
	return out.blocks.map((block) => (block.type === "text" ? block.text : "")).join("");
}

type Section = [header: string, content: TranscriptBlock[]];

function sectionsOf(message: ReturnType<typeof convertToLlm>[number], mode: TranscriptMode): Section[] {
	switch (message.role) {
		case "user":
			return [[TRANSCRIPT_HEADERS.user, renderContent(message.content, mode, false)]];
		case "toolResult":
			return [[TRANSCRIPT_HEADERS.toolResult, renderContent(message.content, mode, true)]];
		case "assistant":
			return assistantSections(message);
	}
}

function assistantSections(message: AssistantMessage): Section[] {
	const thinking: string[] = [];
	const text: string[] = [];
	const calls: string[] = [];
	for (const block of message.content) {
		if (block.type === "thinking") {
			if (!block.redacted) thinking.push(block.thinking);
		} else if (block.type === "text") {
			text.push(block.text);
		} else {
			const args = Object.entries(block.arguments).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
			calls.push(`${block.name}(${args.join(", ")})`);
		}
	}
	const asText = (value: string): TranscriptBlock[] => [{ type: "text", text: value }];
	return [
		[TRANSCRIPT_HEADERS.thinking, asText(thinking.join("\n"))],
		[TRANSCRIPT_HEADERS.assistant, asText(text.join("\n"))],
		[TRANSCRIPT_HEADERS.toolCalls, asText(calls.join("; "))],
	];
}

function renderContent(
	content: string | readonly TranscriptBlock[],
	mode: TranscriptMode,
	isToolResult: boolean,
): TranscriptBlock[] {
	if (typeof content === "string") return [{ type: "text", text: content }];
	const out = new BlockList();
	for (const block of content) {
		if (block.type === "text") {
			out.text(isToolResult && mode === "compacted" ? truncateChunk(block.text) : block.text);
		} else if (mode === "compacted") {
			if (out.blocks.length > 0 && !out.endsWithNewline()) out.text("\n");
			out.text("[image]\n");
		} else {
			if (out.blocks.length > 0) out.text("\n");
			out.image(block);
		}
	}
	return out.blocks;
}

function truncateChunk(text: string): string {
	if (text.length <= TOOL_RESULT_TEXT_LIMIT) return text;
	const rest = text.length - TOOL_RESULT_TEXT_LIMIT;
	return `${text.slice(0, TOOL_RESULT_TEXT_LIMIT)}\n\n[... ${rest} more characters truncated]`;
}

/** Drops one trailing LF of the section's content; an empty result means "omit the section". */
function withoutTrailingNewline(content: TranscriptBlock[]): TranscriptBlock[] {
	const last = content.at(-1);
	if (last?.type !== "text" || !last.text.endsWith("\n")) return content.filter(isNonEmpty);
	return [...content.slice(0, -1), { type: "text" as const, text: last.text.slice(0, -1) }].filter(isNonEmpty);
}

function isNonEmpty(block: TranscriptBlock): boolean {
	return block.type === "image" || block.text.length > 0;
}
