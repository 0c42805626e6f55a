import { calculateCost, emptyUsage } from "./cost.js";
import { type ProviderError, providerError } from "./errors.js";
import { AssistantMessageEventStream } from "./event-stream.js";
import { MAX_ARGUMENT_DEPTH, nestedDeeperThan, tooDeepArguments } from "./json-depth.js";
import { redactUrlSecrets } from "./model-redaction.js";
import type { AssistantMessage, Model, StopReason, TextContent, ThinkingContent, ToolCall } from "./types.js";

interface OpenBlock {
	kind: "text" | "thinking" | "toolCall";
	/** Raw argument JSON accumulated for a tool call. */
	argumentsJson: string;
	/** Whole arguments a provider delivered nested too deeply to be serialised (see json-depth.ts). */
	tooDeep?: boolean;
	ended: boolean;
}

export interface UsageUpdate {
	input?: number;
	output?: number;
	cacheRead?: number;
	cacheWrite?: number;
}

/**
 * Builds one assistant message from provider chunks and emits the matching delta-only events.
 * Every provider drives one of these: it opens blocks, appends deltas, records usage, and ends with
 * `finish` or `fail`. Blocks still open at the end are closed in order, so every `*_start` gets its
 * `*_end`. After the terminal event all calls are ignored.
 */
export class AssistantStreamBuilder {
	readonly stream = new AssistantMessageEventStream();
	readonly message: AssistantMessage;
	private readonly blocks: OpenBlock[] = [];
	private started = false;
	private finished = false;

	constructor(private readonly model: Model) {
		this.message = {
			role: "assistant",
			content: [],
			api: model.api,
			provider: model.provider,
			model: model.id,
			usage: emptyUsage(),
			stopReason: "stop",
			timestamp: Date.now(),
		};
		this.stream.partial = this.message;
	}

	get isFinished(): boolean {
		return this.finished;
	}

	start(): void {
		if (this.started || this.finished) return;
		this.started = true;
		this.stream.push({ type: "start" });
	}

	startText(): number {
		const index = this.open("text", { type: "text", text: "" });
		this.stream.push({ type: "text_start", contentIndex: index });
		return index;
	}

	appendText(index: number, delta: string): void {
		const block = this.live(index, "text") as TextContent | undefined;
		if (!block || delta.length === 0) return;
		block.text += delta;
		this.stream.push({ type: "text_delta", contentIndex: index, delta });
	}

	setTextSignature(index: number, signature: string): void {
		if (this.finished) return;
		const block = this.message.content[index];
		if (block?.type === "text") block.textSignature = signature;
	}

	startThinking(): number {
		const index = this.open("thinking", { type: "thinking", thinking: "" });
		this.stream.push({ type: "thinking_start", contentIndex: index });
		return index;
	}

	appendThinking(index: number, delta: string): void {
		const block = this.live(index, "thinking") as ThinkingContent | undefined;
		if (!block || delta.length === 0) return;
		block.thinking += delta;
		this.stream.push({ type: "thinking_delta", contentIndex: index, delta });
	}

	setThinkingSignature(index: number, signature: string, redacted = false): void {
		if (this.finished) return;
		const block = this.message.content[index];
		if (block?.type !== "thinking") return;
		block.thinkingSignature = (block.thinkingSignature ?? "") + signature;
		if (redacted) block.redacted = true;
	}

	startToolCall(id: string, name: string): number {
		const index = this.open("toolCall", { type: "toolCall", id, name, arguments: {} });
		this.stream.push({ type: "toolcall_start", contentIndex: index, id, toolName: name });
		return index;
	}

	appendToolArguments(index: number, delta: string): void {
		const block = this.live(index, "toolCall");
		const open = this.blocks[index];
		if (!block || !open || delta.length === 0) return;
		open.argumentsJson += delta;
		this.stream.push({ type: "toolcall_delta", contentIndex: index, delta });
	}

	/** Sets the complete arguments of a tool call (providers that deliver them whole). */
	setToolArguments(index: number, args: Record<string, unknown>): void {
		const open = this.blocks[index];
		if (open?.kind !== "toolCall" || open.ended) return;
		if (nestedDeeperThan(args, MAX_ARGUMENT_DEPTH)) {
			open.tooDeep = true;
			return;
		}
		const json = JSON.stringify(args);
		open.argumentsJson = json;
		this.stream.push({ type: "toolcall_delta", contentIndex: index, delta: json });
	}

	setToolCallSignature(index: number, signature: string): void {
		if (this.finished) return;
		const block = this.message.content[index];
		if (block?.type === "toolCall") block.thoughtSignature = signature;
	}

	/** Ends one block. Ending a block twice is a no-op. */
	endBlock(index: number): void {
		const open = this.blocks[index];
		const block = this.message.content[index];
		if (!open || !block || open.ended) return;
		open.ended = true;
		if (block.type === "text") {
			this.stream.push({ type: "text_end", contentIndex: index, content: block.text });
		} else if (block.type === "thinking") {
			this.stream.push({ type: "thinking_end", contentIndex: index, content: block.thinking });
		} else {
			block.arguments = open.tooDeep ? tooDeepArguments("") : parseToolArguments(open.argumentsJson);
			this.stream.push({ type: "toolcall_end", contentIndex: index, toolCall: { ...block } });
		}
	}

	/** Merges a usage report (providers report input and output at different times). */
	setUsage(update: UsageUpdate): void {
		if (this.finished) return;
		const usage = this.message.usage;
		if (update.input !== undefined) usage.input = update.input;
		if (update.output !== undefined) usage.output = update.output;
		if (update.cacheRead !== undefined) usage.cacheRead = update.cacheRead;
		if (update.cacheWrite !== undefined) usage.cacheWrite = update.cacheWrite;
		usage.totalTokens = usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
		usage.cost = calculateCost(this.model, usage);
	}

	hasToolCalls(): boolean {
		return this.message.content.some((block) => block.type === "toolCall");
	}

	/**
	 * Ends the stream successfully; a length stop that is a context overflow in disguise ends it as
	 * that failure instead (see silentOverflow).
	 */
	finish(reason: Exclude<StopReason, "error" | "aborted">): void {
		if (this.finished) return;
		const overflow = reason === "length" ? silentOverflow(this.message, this.model) : undefined;
		if (overflow) {
			this.fail(overflow, false, providerError("context_overflow"));
			return;
		}
		this.start();
		this.closeOpenBlocks();
		this.finished = true;
		this.message.stopReason = reason;
		this.stream.push({ type: "done", reason, message: this.message });
	}

	/**
	 * Ends the stream with an error; `aborted` when the request's signal fired. `error` is the
	 * failure as data (absent for an abort, and for a failure nobody classified: never retried).
	 */
	fail(errorMessage: string, aborted: boolean, error?: ProviderError): void {
		if (this.finished) return;
		this.start();
		this.closeOpenBlocks();
		this.finished = true;
		this.message.stopReason = aborted ? "aborted" : "error";
		// Errors of fetch and the SDKs may quote the request URL, credentials included.
		this.message.errorMessage = redactUrlSecrets(errorMessage, this.model.baseUrl);
		if (error && !aborted) this.message.error = error;
		this.stream.push({ type: "error", reason: aborted ? "aborted" : "error", message: this.message });
	}

	/** Adds a block; after the end it adds nothing and returns -1, an index no later call acts on. */
	private open(kind: OpenBlock["kind"], block: TextContent | ThinkingContent | ToolCall): number {
		if (this.finished) return -1;
		this.start();
		this.message.content.push(block);
		this.blocks.push({ kind, argumentsJson: "", ended: false });
		return this.message.content.length - 1;
	}

	private live(index: number, kind: OpenBlock["kind"]): TextContent | ThinkingContent | ToolCall | undefined {
		const open = this.blocks[index];
		if (!open || open.kind !== kind || open.ended || this.finished) return undefined;
		return this.message.content[index];
	}

	private closeOpenBlocks(): void {
		for (let index = 0; index < this.blocks.length; index++) this.endBlock(index);
	}
}

/** A length stop this close to the window with no output counted is the window running out. */
const SILENT_OVERFLOW_SHARE = 0.99;

/**
 * Why a length stop is a context overflow, when it is one: the prompt filled the model's window
 * (99% of it or more) and no output was counted. Some servers (OpenAI-compatible ones among them)
 * answer an overflowing prompt this way instead of with an error; what text they sent is cut off,
 * and a request must never end with it for the model to continue.
 */
function silentOverflow(message: AssistantMessage, model: Model): string | undefined {
	const window = model.contextWindow;
	const prompt = message.usage.input + message.usage.cacheRead;
	if (window <= 0 || message.usage.output !== 0 || prompt < window * SILENT_OVERFLOW_SHARE) return undefined;
	return `Context overflow: the prompt (${prompt} tokens) filled the ${window}-token context window, and the model stopped without output`;
}

/**
 * Parses streamed tool-call arguments. Invalid or non-object JSON, or JSON nested more than
 * MAX_ARGUMENT_DEPTH levels, yields the raw text under `__raw` (and the reason under
 * `__parseError`), so argument validation reports the problem to the model instead of failing here.
 */
export function parseToolArguments(json: string): Record<string, unknown> {
	if (json.trim() === "") return {};
	try {
		// JSON.parse takes any depth (it does not recurse); serialising the value again would not.
		const value: unknown = JSON.parse(json);
		if (nestedDeeperThan(value, MAX_ARGUMENT_DEPTH)) return tooDeepArguments(json);
		if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
		return { __raw: json };
	} catch (error) {
		return { __raw: json, __parseError: error instanceof Error ? error.message : String(error) };
	}
}
