import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { ProviderFailure, providerError } from "../errors.js";
import type { AssistantStreamBuilder } from "../stream-builder.js";
import type { StopReason } from "../types.js";
import { readCompletionsUsage } from "./openai-completions-usage.js";
import { classifyOpenAIFailure, failureFields, withStatus } from "./openai-errors.js";
import { isRecord } from "./openai-shared.js";

/** The delta fields reasoning arrives in; the thinking block remembers which, to send it back there. */
export type ReasoningField = "reasoning_content" | "reasoning";

interface OpenToolCall {
	/** The builder's block index. */
	index: number;
	id: string;
	/** The argument JSON so far. */
	json: string;
}

const LENGTH_REASONS = new Set(["length", "max_tokens", "model_length"]);

let generatedIds = 0;

/**
 * Turns Chat Completions chunks into builder calls, for OpenAI and the servers that differ from it:
 * reasoning in `reasoning_content` (DeepSeek, vLLM, llama.cpp, Kimi, GLM, Qwen) or `reasoning`
 * (OpenRouter, Ollama, newer vLLM); `content` as a list of typed parts (Mistral's thinking models);
 * `refusal`; tool calls without ids, with one index for all, or with their arguments whole; usage in
 * `x_groq` (Groq) or with reasoning tokens outside `completion_tokens` (xAI); chunks without choices
 * (keep-alives, Azure's prompt filter results); and no finish reason at all (some routers).
 */
export class CompletionsStreamReader {
	/** The open text or thinking block (only one flows at a time). */
	private flowing: { kind: "text" | "thinking"; index: number; field?: ReasoningField } | undefined;
	/** Open tool calls by the stream's `index`. */
	private readonly toolCalls = new Map<number, OpenToolCall>();
	private readonly allCalls: OpenToolCall[] = [];
	private lastCall: OpenToolCall | undefined;
	private finishReason: string | undefined;

	constructor(private readonly out: AssistantStreamBuilder) {}

	read(chunk: ChatCompletionChunk): void {
		const raw: unknown = chunk;
		// vLLM and some proxies send their error object as a chunk of its own.
		if (isRecord(raw) && raw.object === "error") throw inStreamFailure(raw);
		const usage = readCompletionsUsage(raw);
		if (usage) this.out.setUsage(usage);
		const choices: unknown[] = Array.isArray(chunk.choices) ? chunk.choices : [];
		const choice = choices.find((entry) => isRecord(entry) && (entry.index ?? 0) === 0) ?? choices[0];
		if (!isRecord(choice)) return;
		if (isRecord(choice.delta)) this.readDelta(choice.delta);
		if (typeof choice.finish_reason === "string" && choice.finish_reason) this.finishReason = choice.finish_reason;
	}

	/**
	 * The stop reason. Without a finish reason the stream ended with `[DONE]` or a clean end of the
	 * body: a complete reply is a tool turn when it called tools, else a stop; a stream that brought
	 * nothing, or ended inside a tool call's arguments, was cut short.
	 */
	stopReason(): Exclude<StopReason, "error" | "aborted"> {
		const reason = this.finishReason;
		if (reason === undefined) return this.inferredStop();
		if (LENGTH_REASONS.has(reason)) return "length";
		if (reason === "content_filter") {
			throw new ProviderFailure(
				"The provider's content filter stopped the reply (finish_reason: content_filter)",
				providerError("content_filter", { code: reason }),
			);
		}
		if (reason === "error") {
			throw new ProviderFailure(
				"The provider ended the reply with an error (finish_reason: error)",
				providerError("server_error", { code: reason }),
			);
		}
		// stop, tool_calls, function_call, eos...: a normal end; tool calls make it a tool turn.
		return this.out.hasToolCalls() ? "toolUse" : "stop";
	}

	private inferredStop(): "stop" | "toolUse" {
		if (this.out.message.content.length === 0) {
			throw new ProviderFailure(
				"Provider stream ended without a finish reason or any content",
				providerError("network"),
			);
		}
		if (this.allCalls.some((call) => !isCompleteJson(call.json))) {
			throw new ProviderFailure("Provider stream ended inside a tool call's arguments", providerError("network"));
		}
		return this.out.hasToolCalls() ? "toolUse" : "stop";
	}

	private readDelta(delta: Record<string, unknown>): void {
		const field: ReasoningField | undefined =
			typeof delta.reasoning_content === "string" && delta.reasoning_content
				? "reasoning_content"
				: typeof delta.reasoning === "string" && delta.reasoning
					? "reasoning"
					: undefined;
		if (field) this.appendFlowing("thinking", String(delta[field]), field);
		this.readContent(delta.content);
		if (typeof delta.refusal === "string") this.appendFlowing("text", delta.refusal);
		if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) this.readToolCall(call);
	}

	/** A string, or typed parts: `text` parts are text, `thinking` parts (text or a list of text parts) thinking. */
	private readContent(content: unknown): void {
		if (typeof content === "string") {
			this.appendFlowing("text", content);
			return;
		}
		if (!Array.isArray(content)) return;
		for (const part of content) {
			if (!isRecord(part)) continue;
			if (part.type === "text" && typeof part.text === "string") this.appendFlowing("text", part.text);
			else if (part.type === "thinking") this.appendFlowing("thinking", partText(part.thinking));
		}
	}

	private appendFlowing(kind: "text" | "thinking", delta: string, field?: ReasoningField): void {
		if (!delta) return;
		if (this.flowing?.kind !== kind) {
			this.endFlowing();
			const index = kind === "text" ? this.out.startText() : this.out.startThinking();
			if (field) this.out.setThinkingSignature(index, field);
			this.flowing = { kind, index, ...(field ? { field } : {}) };
		}
		if (kind === "text") this.out.appendText(this.flowing.index, delta);
		else this.out.appendThinking(this.flowing.index, delta);
	}

	private endFlowing(): void {
		if (this.flowing) this.out.endBlock(this.flowing.index);
		this.flowing = undefined;
	}

	/**
	 * A tool-call delta. A call starts at an unseen index, at a seen index with another id and a name
	 * (servers that number every call 0), or, without an index, with a name; other deltas continue the
	 * call at their index, or the last call. Missing ids are generated and repeated ids made unique,
	 * since each result must pair with its call.
	 */
	private readToolCall(call: unknown): void {
		if (!isRecord(call)) return;
		const fn = isRecord(call.function) ? call.function : {};
		const name = typeof fn.name === "string" ? fn.name : "";
		const id = typeof call.id === "string" ? call.id : "";
		const key = typeof call.index === "number" ? call.index : undefined;
		const atIndex = key === undefined ? undefined : this.toolCalls.get(key);
		let open = key === undefined ? (name ? undefined : this.lastCall) : atIndex;
		if (open && id && name && open.id !== id && key !== undefined) open = undefined;
		if (!open) {
			if (!name && !id && key === undefined) return; // a fragment that belongs to no call
			this.endFlowing();
			const callId = this.uniqueId(id);
			open = { index: this.out.startToolCall(callId, name), id: id || callId, json: "" };
			this.allCalls.push(open);
			if (key !== undefined) this.toolCalls.set(key, open);
		}
		this.lastCall = open;
		const args = fn.arguments;
		const text = typeof args === "string" ? args : isRecord(args) && open.json === "" ? JSON.stringify(args) : "";
		if (text) {
			open.json += text;
			this.out.appendToolArguments(open.index, text);
		}
	}

	private uniqueId(id: string): string {
		const taken = new Set(this.allCalls.map((call) => this.idAt(call)));
		if (id && !taken.has(id)) return id;
		const base = id || `call_${Date.now().toString(36)}`;
		let candidate = `${base}_${++generatedIds}`;
		while (taken.has(candidate)) candidate = `${base}_${++generatedIds}`;
		return candidate;
	}

	private idAt(call: OpenToolCall): string {
		const block = this.out.message.content[call.index];
		return block?.type === "toolCall" ? block.id : call.id;
	}
}

function partText(value: unknown): string {
	if (typeof value === "string") return value;
	if (!Array.isArray(value)) return "";
	return value.map((part) => (isRecord(part) && typeof part.text === "string" ? part.text : "")).join("");
}

function isCompleteJson(json: string): boolean {
	if (json.trim() === "") return true;
	try {
		JSON.parse(json);
		return true;
	} catch {
		return false; // the arguments stopped part way
	}
}

/** A failure for an error object sent as a chunk (`{"object": "error", "message": ..., "code": ...}`). */
function inStreamFailure(body: Record<string, unknown>): ProviderFailure {
	const fields = failureFields(body);
	const message = fields.message ?? "The provider reported an error inside the stream";
	return new ProviderFailure(
		withStatus(fields.code ?? fields.type, message),
		classifyOpenAIFailure({ ...fields, message }),
	);
}
