import type { GenerateContentResponse, GenerateContentResponseUsageMetadata, Part } from "@google/genai";
import { type ProviderErrorKind, ProviderFailure, providerError } from "../errors.js";
import type { AssistantStreamBuilder } from "../stream-builder.js";

type OpenKind = "text" | "thinking";

/** The fields of a response chunk the reader uses. */
export type GoogleChunk = Pick<GenerateContentResponse, "candidates" | "usageMetadata" | "promptFeedback">;

/** Finish reasons that end a reply as a failure, by kind. */
const FINISH_KINDS: Record<string, ProviderErrorKind> = {
	SAFETY: "content_filter",
	RECITATION: "content_filter",
	BLOCKLIST: "content_filter",
	PROHIBITED_CONTENT: "content_filter",
	SPII: "content_filter",
	IMAGE_SAFETY: "content_filter",
	MALFORMED_FUNCTION_CALL: "invalid_response",
	UNEXPECTED_TOOL_CALL: "invalid_response",
};

let toolCallCounter = 0;

/** A unique id for a function call that came without one (older Gemini models send none). */
export function generateToolCallId(name: string): string {
	const random = Math.random().toString(36).slice(2, 6).padEnd(4, "0");
	return `${name}_${++toolCallCounter}_${random}`;
}

/**
 * Feeds Gemini response chunks into a stream builder. Parts arrive in order; a thought part
 * continues the open thinking block, a text part the open text block, and a function call arrives
 * whole and becomes one complete tool-call block.
 */
export class GoogleStreamReader {
	private open: { kind: OpenKind; index: number } | undefined;
	private finishReason: string | undefined;
	private finishMessage: string | undefined;

	constructor(private readonly out: AssistantStreamBuilder) {}

	read(chunk: GoogleChunk): void {
		const candidate = chunk.candidates?.[0];
		for (const part of candidate?.content?.parts ?? []) this.readPart(part);
		if (chunk.usageMetadata) this.readUsage(chunk.usageMetadata);
		if (candidate?.finishReason) {
			this.finishReason = candidate.finishReason;
			this.finishMessage = candidate.finishMessage;
		}
		const blockReason = chunk.promptFeedback?.blockReason;
		if (!candidate && blockReason) {
			const detail = chunk.promptFeedback?.blockReasonMessage;
			throw new ProviderFailure(
				`Gemini blocked the prompt (${blockReason})${detail ? `: ${detail}` : ""}`,
				providerError("content_filter", { code: blockReason }),
			);
		}
	}

	/**
	 * Ends the reply from the last finish reason seen: STOP and MAX_TOKENS end it; the others
	 * (SAFETY, RECITATION, ...) are failures that keep what was streamed and are not retried.
	 */
	finish(): void {
		const reason = this.finishReason;
		if (reason === undefined) return; // no finish reason: the registry reports an incomplete stream
		if (reason === "STOP") this.out.finish(this.out.hasToolCalls() ? "toolUse" : "stop");
		else if (reason === "MAX_TOKENS") this.out.finish("length");
		else {
			const detail = this.finishMessage ? `: ${this.finishMessage}` : "";
			throw new ProviderFailure(
				`Gemini stopped the reply with finish reason ${reason}${detail}`,
				providerError(FINISH_KINDS[reason] ?? "unknown", { code: reason }),
			);
		}
	}

	private readPart(part: Part): void {
		if (part.functionCall) {
			this.readFunctionCall(part);
		} else if (part.thought === true) {
			// A signature ends a thought, so a signed thinking block is not continued.
			const index = this.blockFor("thinking", this.hasThinkingSignature());
			if (part.text) this.out.appendThinking(index, part.text);
			if (part.thoughtSignature) this.out.setThinkingSignature(index, part.thoughtSignature);
		} else if (part.text !== undefined) {
			// Gemini sends empty text parts, sometimes carrying only a signature for the text before.
			if (!part.text && !part.thoughtSignature) return;
			const index = this.blockFor("text", false);
			this.out.appendText(index, part.text);
			if (part.thoughtSignature) this.out.setTextSignature(index, part.thoughtSignature);
		}
	}

	private readFunctionCall(part: Part): void {
		const call = part.functionCall;
		if (!call) return;
		this.closeOpen();
		const name = call.name ?? "";
		const index = this.out.startToolCall(call.id || generateToolCallId(name), name);
		this.out.setToolArguments(index, call.args ?? {});
		if (part.thoughtSignature) this.out.setToolCallSignature(index, part.thoughtSignature);
		this.out.endBlock(index);
	}

	/** The index of the open block of this kind, opening a new one when needed. */
	private blockFor(kind: OpenKind, forceNew: boolean): number {
		if (this.open?.kind === kind && !forceNew) return this.open.index;
		this.closeOpen();
		const index = kind === "text" ? this.out.startText() : this.out.startThinking();
		this.open = { kind, index };
		return index;
	}

	private hasThinkingSignature(): boolean {
		if (this.open?.kind !== "thinking") return false;
		const block = this.out.message.content[this.open.index];
		return block?.type === "thinking" && Boolean(block.thinkingSignature);
	}

	private closeOpen(): void {
		if (this.open) this.out.endBlock(this.open.index);
		this.open = undefined;
	}

	/** Usage totals are cumulative per chunk; the prompt count includes cached tokens. */
	private readUsage(usage: GenerateContentResponseUsageMetadata): void {
		const prompt = usage.promptTokenCount ?? 0;
		const cached = usage.cachedContentTokenCount ?? 0;
		this.out.setUsage({
			input: Math.max(0, prompt - cached),
			cacheRead: cached,
			output: (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0),
		});
	}
}
