/**
 * Gemini's `POST /v1beta/models/{model}:streamGenerateContent?alt=sse`: every frame is
 * `data: <GenerateContentResponse JSON>` followed by a CRLF blank line. Thoughts arrive as text
 * parts marked `thought: true` (the last piece of a thought carries its signature), function calls
 * arrive whole, and a final frame carries the finish reason and the usage totals.
 */
import type { NormalizedBlock, NormalizedReply } from "../llm-server.js";
import type { Wire } from "./index.js";

const MODEL_VERSION = "gemini-loopback-001";

const STATUS_NAMES: Record<number, string> = {
	400: "INVALID_ARGUMENT",
	401: "UNAUTHENTICATED",
	403: "PERMISSION_DENIED",
	404: "NOT_FOUND",
	429: "RESOURCE_EXHAUSTED",
	500: "INTERNAL",
	503: "UNAVAILABLE",
};

let responseCounter = 0;

function frame(data: unknown): string {
	return `data: ${JSON.stringify(data)}\r\n\r\n`;
}

function partsOf(block: NormalizedBlock): Record<string, unknown>[] {
	if (block.type === "toolCall") {
		return [{ functionCall: { id: block.id, name: block.name, args: block.arguments } }];
	}
	if (block.type === "text") return block.pieces.map((text) => ({ text }));
	return block.pieces.map((text, index) =>
		index === block.pieces.length - 1
			? { text, thought: true, thoughtSignature: block.signature }
			: { text, thought: true },
	);
}

/** Splits the scripted output into candidate and thought tokens (roughly 4 characters a token). */
function usageOf(reply: NormalizedReply): Record<string, number> {
	const thinkingChars = reply.blocks.reduce(
		(sum, block) => sum + (block.type === "thinking" ? block.text.length : 0),
		0,
	);
	const thoughts = thinkingChars > 0 ? Math.min(reply.usage.output, Math.ceil(thinkingChars / 4)) : 0;
	const candidates = reply.usage.output - thoughts;
	const prompt = reply.usage.input + reply.usage.cacheRead;
	const usage: Record<string, number> = { promptTokenCount: prompt, candidatesTokenCount: candidates };
	if (thoughts > 0) usage.thoughtsTokenCount = thoughts;
	if (reply.usage.cacheRead > 0) usage.cachedContentTokenCount = reply.usage.cacheRead;
	usage.totalTokenCount = prompt + candidates + thoughts;
	return usage;
}

export const googleWire: Wire = {
	frames(reply) {
		const responseId = `loopback-${++responseCounter}`;
		const envelope = (candidate: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
			frame({ candidates: [{ ...candidate, index: 0 }], ...extra, modelVersion: MODEL_VERSION, responseId });
		const frames = reply.blocks.flatMap((block) =>
			partsOf(block).map((part) => envelope({ content: { parts: [part], role: "model" } })),
		);
		// Gemini closes with an empty text part next to the finish reason.
		const finishReason = reply.stopReason === "length" ? "MAX_TOKENS" : "STOP";
		frames.push(
			envelope({ content: { parts: [{ text: "" }], role: "model" }, finishReason }, { usageMetadata: usageOf(reply) }),
		);
		return frames;
	},
	errorBody(status, message) {
		const name = STATUS_NAMES[status] ?? (status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT");
		return { error: { code: status, message, status: name } };
	},
};
