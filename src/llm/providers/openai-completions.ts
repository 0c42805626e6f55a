import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import type { CompletionUsage } from "openai/resources/completions";
import type { AssistantStreamBuilder } from "../stream-builder.js";
import type { Context, Model, StopReason, StreamOptions } from "../types.js";
import { connectOpenAI } from "./openai-client.js";
import { buildCompletionsRequest } from "./openai-completions-request.js";

type FinishReason = NonNullable<ChatCompletionChunk.Choice["finish_reason"]>;
type Delta = ChatCompletionChunk.Choice.Delta & {
	/** DeepSeek, vLLM, llama.cpp. */
	reasoning_content?: string | null;
	/** OpenRouter, Ollama. */
	reasoning?: string | null;
};

export async function streamReply(
	model: Model,
	context: Context,
	options: StreamOptions,
	out: AssistantStreamBuilder,
): Promise<void> {
	const { client, providerError } = connectOpenAI(model, options);
	const request = buildCompletionsRequest(model, context, options);
	const reader = new CompletionsStreamReader(out);
	try {
		const stream = await client.chat.completions.create(request, { signal: options.signal });
		out.start();
		for await (const chunk of stream) reader.read(chunk);
	} catch (error) {
		throw providerError(error);
	}
	// The SDK ends the iteration quietly when the signal fires.
	if (options.signal?.aborted) throw new Error("Request was aborted");
	out.finish(reader.stopReason());
}

/** Turns Chat Completions chunks into builder calls. */
class CompletionsStreamReader {
	/** The open text or thinking block (only one flows at a time). */
	private flowing: { kind: "text" | "thinking"; index: number } | undefined;
	/** Builder block index per tool-call `index` of the stream. */
	private readonly toolCalls = new Map<number, number>();
	private finishReason: FinishReason | undefined;

	constructor(private readonly out: AssistantStreamBuilder) {}

	read(chunk: ChatCompletionChunk): void {
		if (chunk.usage) this.readUsage(chunk.usage);
		// Usage-only chunks (and some servers' keep-alives) have no choices.
		const choice = chunk.choices?.[0];
		if (!choice) return;
		const delta: Delta | undefined = choice.delta;
		if (delta) {
			const thinking = delta.reasoning_content || delta.reasoning;
			if (thinking) this.appendFlowing("thinking", thinking);
			if (delta.content) this.appendFlowing("text", delta.content);
			for (const call of delta.tool_calls ?? []) this.readToolCall(call);
		}
		if (choice.finish_reason) this.finishReason = choice.finish_reason;
	}

	stopReason(): Exclude<StopReason, "error" | "aborted"> {
		switch (this.finishReason) {
			case undefined:
				throw new Error("Provider stream ended without a finish reason");
			case "length":
				return "length";
			case "content_filter":
				throw new Error("The provider's content filter stopped the reply (finish_reason: content_filter)");
			default:
				// stop, tool_calls, function_call: a normal end; tool calls make it a tool turn.
				return this.out.hasToolCalls() ? "toolUse" : "stop";
		}
	}

	private appendFlowing(kind: "text" | "thinking", delta: string): void {
		if (this.flowing?.kind !== kind) {
			if (this.flowing) this.out.endBlock(this.flowing.index);
			this.flowing = { kind, index: kind === "text" ? this.out.startText() : this.out.startThinking() };
		}
		if (kind === "text") this.out.appendText(this.flowing.index, delta);
		else this.out.appendThinking(this.flowing.index, delta);
	}

	private readToolCall(call: ChatCompletionChunk.Choice.Delta.ToolCall): void {
		let index = this.toolCalls.get(call.index);
		if (index === undefined) {
			if (this.flowing) this.out.endBlock(this.flowing.index);
			this.flowing = undefined;
			// Some servers send no id; the call still needs one to pair with its result.
			index = this.out.startToolCall(call.id || `call_${call.index}`, call.function?.name ?? "");
			this.toolCalls.set(call.index, index);
		}
		const args = call.function?.arguments;
		if (args) this.out.appendToolArguments(index, args);
	}

	private readUsage(usage: CompletionUsage): void {
		const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
		this.out.setUsage({
			input: Math.max(0, (usage.prompt_tokens ?? 0) - cached),
			output: usage.completion_tokens ?? 0,
			cacheRead: cached,
		});
	}
}
