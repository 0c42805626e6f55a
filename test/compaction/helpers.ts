import { createNumberedRegion, type NumberedRegion } from "../../src/compaction/numbering.js";
import type { ProviderError } from "../../src/llm/errors.js";
import type { AssistantMessage, StopReason } from "../../src/llm/types.js";

/** A region from its lines, as createNumberedRegion sees them. */
export function regionOf(lines: readonly string[]): NumberedRegion {
	return createNumberedRegion(lines.join("\n"));
}

/** `count` lines `<prefix> <n>`, numbered from `from`. */
export function numberedLines(count: number, prefix = "line", from = 1): string[] {
	return Array.from({ length: count }, (_, index) => `${prefix} ${from + index}`);
}

/** A planner reply as the llm layer would finish it. */
export function plannerReply(
	text: string,
	options: {
		stopReason?: StopReason;
		errorMessage?: string;
		/** The failure as the provider module classified it. */
		error?: ProviderError;
		input?: number;
		output?: number;
		cacheRead?: number;
		thinking?: string;
	} = {},
): AssistantMessage {
	const message: AssistantMessage = {
		role: "assistant",
		content: [
			...(options.thinking ? [{ type: "thinking" as const, thinking: options.thinking }] : []),
			...(text ? [{ type: "text" as const, text }] : []),
		],
		api: "anthropic-messages",
		provider: "test",
		model: "planner",
		usage: {
			input: options.input ?? 100,
			output: options.output ?? 10,
			cacheRead: options.cacheRead ?? 0,
			cacheWrite: 0,
			totalTokens: (options.input ?? 100) + (options.output ?? 10) + (options.cacheRead ?? 0),
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		},
		stopReason: options.stopReason ?? "stop",
		timestamp: 1,
	};
	if (options.errorMessage !== undefined) message.errorMessage = options.errorMessage;
	if (options.error !== undefined) message.error = options.error;
	return message;
}

/** The error a provider module gives a request that did not fit the window. */
export const OVERFLOW_ERROR: ProviderError = { kind: "context_overflow", retryable: false, status: 400 };
