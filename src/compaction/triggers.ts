import type { Api, AssistantMessage, Usage } from "../llm/types.js";
import { DEFAULT_RESERVE_TOKENS } from "./constants.js";

/**
 * Tokens the context occupied for a reply, from its usage (§5.10). Some Anthropic-compatible
 * endpoints report the cached prompt again inside `input`; when cache reads plus writes are
 * within 10% of `input`, the input is counted once.
 */
export function calculateContextTokens(usage: Usage, api: Api): number {
	const { input, output, cacheRead, cacheWrite } = usage;
	if (input === 0 && output === 0 && cacheRead === 0 && cacheWrite === 0) return usage.totalTokens;
	const cached = cacheRead + cacheWrite;
	if (api === "anthropic-messages" && input > 0 && Math.abs(cached - input) <= input * 0.1) return input + output;
	return input + cacheRead + cacheWrite + output;
}

/** Whether a context of `tokens` leaves less than `reserveTokens` of the window free. */
export function shouldCompact(tokens: number, contextWindow: number, reserveTokens = DEFAULT_RESERVE_TOKENS): boolean {
	return tokens > contextWindow - reserveTokens;
}

/**
 * How a reply shows that its request did not fit:
 * - "reported": an error its provider classified as a context overflow (`error.kind`);
 * - "silent_stop": a normal stop although the prompt alone exceeded the window (some servers
 *   truncate the prompt silently).
 * A length stop with no output and a full window arrives as a reported one: the stream ends it as
 * the overflow it is (llm/stream-builder.ts). The prompt size is `input + cacheRead` (input counts
 * uncached tokens only).
 */
export type OverflowKind = "reported" | "silent_stop";

export function contextOverflowOf(message: AssistantMessage, contextWindow: number): OverflowKind | undefined {
	if (message.stopReason === "error") {
		return message.error?.kind === "context_overflow" ? "reported" : undefined;
	}
	if (contextWindow <= 0) return undefined;
	const prompt = message.usage.input + message.usage.cacheRead;
	if (message.stopReason === "stop" && prompt > contextWindow) return "silent_stop";
	return undefined;
}

export function isContextOverflowReply(message: AssistantMessage, contextWindow: number): boolean {
	return contextOverflowOf(message, contextWindow) !== undefined;
}
