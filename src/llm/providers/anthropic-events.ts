import type {
	StopReason as AnthropicStopReason,
	RawContentBlockDelta,
	RawContentBlockStartEvent,
	RawMessageStreamEvent,
	RefusalStopDetails,
} from "@anthropic-ai/sdk/resources/messages";
import { ProviderFailure, providerError } from "../errors.js";
import type { AssistantStreamBuilder } from "../stream-builder.js";

/** Usage as message_start (all fields) and message_delta (cumulative, often partial) report it. */
interface UsageReport {
	input_tokens?: number | null;
	output_tokens?: number | null;
	cache_read_input_tokens?: number | null;
	cache_creation_input_tokens?: number | null;
}

/**
 * Drives an AssistantStreamBuilder from the raw Messages API stream events. Anthropic numbers
 * content blocks itself; blocks Atomic does not model (server tools, ...) are skipped, so the
 * reader keeps its own map from the API's block index to the builder's.
 */
export class AnthropicEventReader {
	private readonly blocks = new Map<number, number>();
	private stopReason: AnthropicStopReason | null = null;
	private stopDetails: RefusalStopDetails | null = null;
	private messageStopped = false;

	constructor(private readonly out: AssistantStreamBuilder) {}

	handle(event: RawMessageStreamEvent): void {
		switch (event.type) {
			case "message_start":
				this.out.start();
				this.readUsage(event.message.usage);
				break;
			case "content_block_start":
				this.startBlock(event.index, event.content_block);
				break;
			case "content_block_delta":
				this.applyDelta(event.index, event.delta);
				break;
			case "content_block_stop": {
				const index = this.blocks.get(event.index);
				if (index !== undefined) this.out.endBlock(index);
				break;
			}
			case "message_delta":
				if (event.delta.stop_reason) this.stopReason = event.delta.stop_reason;
				if (event.delta.stop_details) this.stopDetails = event.delta.stop_details;
				this.readUsage(event.usage);
				break;
			case "message_stop":
				this.messageStopped = true;
				break;
			default:
				break; // event types added after this SDK version
		}
	}

	/**
	 * Ends the reply with the mapped stop reason. A `message_stop` without a stop reason (some
	 * compatible servers send none) ends a complete reply: a tool turn when it called tools. Without
	 * either the stream was cut short: the builder is left open and the registry reports the missing
	 * end. A refusal throws.
	 */
	finish(): void {
		switch (this.stopReason) {
			case null:
				if (this.messageStopped) this.out.finish(this.out.hasToolCalls() ? "toolUse" : "stop");
				return;
			case "max_tokens":
			case "model_context_window_exceeded":
				this.out.finish("length");
				return;
			case "refusal":
				throw new ProviderFailure(
					refusalMessage(this.stopDetails),
					providerError("content_filter", { code: "refusal" }),
				);
			case "tool_use":
				this.out.finish("toolUse");
				return;
			default:
				// end_turn, stop_sequence, pause_turn
				this.out.finish(this.out.hasToolCalls() ? "toolUse" : "stop");
		}
	}

	private startBlock(apiIndex: number, block: RawContentBlockStartEvent["content_block"]): void {
		switch (block.type) {
			case "text": {
				const index = this.out.startText();
				this.blocks.set(apiIndex, index);
				this.out.appendText(index, block.text);
				break;
			}
			case "thinking": {
				const index = this.out.startThinking();
				this.blocks.set(apiIndex, index);
				this.out.appendThinking(index, block.thinking);
				if (block.signature) this.out.setThinkingSignature(index, block.signature);
				break;
			}
			case "redacted_thinking": {
				const index = this.out.startThinking();
				this.blocks.set(apiIndex, index);
				this.out.setThinkingSignature(index, block.data, true);
				break;
			}
			case "tool_use": {
				const index = this.out.startToolCall(block.id, block.name);
				this.blocks.set(apiIndex, index);
				// Arguments normally stream as input_json_delta; a block may also arrive whole.
				if (isNonEmptyObject(block.input)) this.out.setToolArguments(index, block.input);
				break;
			}
			default:
				break;
		}
	}

	private applyDelta(apiIndex: number, delta: RawContentBlockDelta): void {
		const index = this.blocks.get(apiIndex);
		if (index === undefined) return;
		switch (delta.type) {
			case "text_delta":
				this.out.appendText(index, delta.text);
				break;
			case "thinking_delta":
				this.out.appendThinking(index, delta.thinking);
				break;
			case "signature_delta":
				this.out.setThinkingSignature(index, delta.signature);
				break;
			case "input_json_delta":
				this.out.appendToolArguments(index, delta.partial_json);
				break;
			default:
				break; // citations are not modelled
		}
	}

	private readUsage(usage: UsageReport): void {
		this.out.setUsage({
			input: usage.input_tokens ?? undefined,
			output: usage.output_tokens ?? undefined,
			cacheRead: usage.cache_read_input_tokens ?? undefined,
			cacheWrite: usage.cache_creation_input_tokens ?? undefined,
		});
	}
}

function isNonEmptyObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length > 0;
}

function refusalMessage(details: RefusalStopDetails | null): string {
	const parts = [details?.category ? `category ${details.category}` : "", details?.explanation ?? ""].filter(Boolean);
	return `The model refused to answer (stop_reason "refusal")${parts.length > 0 ? `: ${parts.join(", ")}` : ""}`;
}
