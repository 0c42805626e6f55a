import type {
	Response,
	ResponseOutputItem,
	ResponseStreamEvent,
	ResponseUsage,
} from "openai/resources/responses/responses";
import { ProviderFailure, providerError } from "../errors.js";
import type { AssistantStreamBuilder } from "../stream-builder.js";
import type { StopReason } from "../types.js";
import { classifyOpenAIFailure, withStatus } from "./openai-errors.js";

interface ItemState {
	kind: "text" | "thinking" | "toolCall";
	/** The builder's block index. */
	index: number;
	/** Whether any delta arrived (else the finished item supplies the content). */
	streamed: boolean;
	/** The reasoning summary part being streamed. */
	summaryIndex: number;
}

/** Turns Responses stream events into builder calls; items are tracked by `output_index`. */
export class ResponsesStreamReader {
	private readonly items = new Map<number, ItemState>();
	stopReason: Exclude<StopReason, "error" | "aborted"> | undefined;

	constructor(private readonly out: AssistantStreamBuilder) {}

	read(event: ResponseStreamEvent): void {
		switch (event.type) {
			case "response.output_item.added":
				this.open(event.output_index, event.item);
				break;
			case "response.reasoning_summary_text.delta":
				this.appendSummary(event.output_index, event.summary_index, event.delta);
				break;
			case "response.reasoning_text.delta":
				this.append(event.output_index, "thinking", event.delta);
				break;
			case "response.output_text.delta":
			case "response.refusal.delta":
				this.append(event.output_index, "text", event.delta);
				break;
			case "response.function_call_arguments.delta":
				this.append(event.output_index, "toolCall", event.delta);
				break;
			case "response.function_call_arguments.done":
				if (!this.items.get(event.output_index)?.streamed) this.append(event.output_index, "toolCall", event.arguments);
				break;
			case "response.output_item.done":
				this.close(event.output_index, event.item);
				break;
			case "response.completed":
				this.readUsage(event.response.usage);
				this.stopReason = this.out.hasToolCalls() ? "toolUse" : "stop";
				break;
			case "response.incomplete":
				this.readUsage(event.response.usage);
				this.stopReason = incompleteReason(event.response);
				break;
			case "response.failed":
				throw failureOf(event.response);
			case "error":
				throw streamFailure(event.code, event.message);
		}
	}

	private open(outputIndex: number, item: ResponseOutputItem): ItemState | undefined {
		const existing = this.items.get(outputIndex);
		if (existing) return existing;
		if (item.type === "reasoning") return this.track(outputIndex, "thinking", this.out.startThinking());
		if (item.type === "message") return this.track(outputIndex, "text", this.out.startText());
		if (item.type === "function_call") {
			return this.track(outputIndex, "toolCall", this.out.startToolCall(toolCallId(item.call_id, item.id), item.name));
		}
		return undefined; // built-in tools (web search, ...) are not ours to show
	}

	private track(outputIndex: number, kind: ItemState["kind"], index: number): ItemState {
		const state: ItemState = { kind, index, streamed: false, summaryIndex: 0 };
		this.items.set(outputIndex, state);
		return state;
	}

	private append(outputIndex: number, kind: ItemState["kind"], delta: string): void {
		const state = this.items.get(outputIndex) ?? this.openImplicit(outputIndex, kind);
		if (!state || state.kind !== kind || !delta) return;
		state.streamed = true;
		if (kind === "text") this.out.appendText(state.index, delta);
		else if (kind === "thinking") this.out.appendThinking(state.index, delta);
		else this.out.appendToolArguments(state.index, delta);
	}

	/** Summary parts are separate paragraphs: a new part starts after a blank line. */
	private appendSummary(outputIndex: number, summaryIndex: number, delta: string): void {
		const state = this.items.get(outputIndex) ?? this.openImplicit(outputIndex, "thinking");
		if (state?.kind !== "thinking") return;
		if (summaryIndex !== state.summaryIndex) {
			if (state.streamed) this.out.appendThinking(state.index, "\n\n");
			state.summaryIndex = summaryIndex;
		}
		this.append(outputIndex, "thinking", delta);
	}

	/** Some servers skip `output_item.added` for text and reasoning. */
	private openImplicit(outputIndex: number, kind: ItemState["kind"]): ItemState | undefined {
		if (kind === "text") return this.track(outputIndex, kind, this.out.startText());
		if (kind === "thinking") return this.track(outputIndex, kind, this.out.startThinking());
		return undefined; // a call without its id and name cannot be used
	}

	private close(outputIndex: number, item: ResponseOutputItem): void {
		const state = this.open(outputIndex, item);
		if (!state) return;
		if (item.type === "reasoning") {
			if (!state.streamed) {
				this.append(outputIndex, "thinking", item.summary.map((part) => part.text).join("\n\n"));
			}
			// The whole item goes back to the API on the next turn (encrypted reasoning included).
			this.out.setThinkingSignature(state.index, JSON.stringify(item));
		} else if (item.type === "message") {
			if (!state.streamed) {
				const text = item.content.map((part) => (part.type === "output_text" ? part.text : part.refusal)).join("");
				this.append(outputIndex, "text", text);
			}
			this.out.setTextSignature(state.index, item.id);
		} else if (item.type === "function_call" && !state.streamed) {
			this.append(outputIndex, "toolCall", item.arguments);
		}
		this.out.endBlock(state.index);
	}

	private readUsage(usage: ResponseUsage | undefined): void {
		if (!usage) return;
		const cached = usage.input_tokens_details?.cached_tokens ?? 0;
		this.out.setUsage({
			input: Math.max(0, (usage.input_tokens ?? 0) - cached),
			output: usage.output_tokens ?? 0,
			cacheRead: cached,
		});
	}
}

/** Our id for a Responses call: `<call_id>|<item_id>`, since the next request needs both. */
function toolCallId(callId: string, itemId: string | undefined): string {
	return itemId ? `${callId}|${itemId}` : callId;
}

/** `max_output_tokens` (or no reason) is a length stop; a content filter ends the reply as a failure. */
function incompleteReason(response: Response): "length" {
	const reason = response.incomplete_details?.reason;
	if (reason === "content_filter") {
		throw new ProviderFailure(
			"The provider's content filter stopped the reply (incomplete: content_filter)",
			providerError("content_filter", { code: reason }),
		);
	}
	return "length";
}

function failureOf(response: Response): ProviderFailure {
	const error = response.error;
	if (!error) {
		return new ProviderFailure(`Response failed (status: ${response.status ?? "unknown"})`, providerError("unknown"));
	}
	return streamFailure(error.code, error.message);
}

function streamFailure(code: unknown, message: string): ProviderFailure {
	return new ProviderFailure(withStatus(code, message), classifyOpenAIFailure({ code, message }));
}
