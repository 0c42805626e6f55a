import type { AgentMessage } from "../../agent/messages.js";
import type { AssistantMessage, Model, Usage } from "../../llm/types.js";
import type { SessionEntry } from "../../session/types.js";

export interface SessionStats {
	sessionFile?: string;
	sessionId: string;
	userMessages: number;
	assistantMessages: number;
	toolCalls: number;
	toolResults: number;
	totalMessages: number;
	tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
	cost: number;
	contextUsage?: ContextUsage;
}

export type ContextUsage = {
	/** Null right after a compaction, until a reply reports fresh usage. */
	tokens: number | null;
	contextWindow: number;
	percent: number | null;
};

/** Rough token count of text (4 characters per token); images count as 1200 tokens. */
export function estimateTokens(message: AgentMessage): number {
	let characters = 0;
	const add = (content: unknown) => {
		if (typeof content === "string") characters += content.length;
		else if (Array.isArray(content)) {
			for (const block of content as { type: string; text?: string; thinking?: string; arguments?: unknown }[]) {
				if (block.type === "text") characters += block.text?.length ?? 0;
				else if (block.type === "thinking") characters += block.thinking?.length ?? 0;
				else if (block.type === "toolCall") characters += JSON.stringify(block.arguments ?? {}).length;
				else if (block.type === "image") characters += 4800;
			}
		}
	};
	switch (message.role) {
		case "bashExecution":
			characters += message.command.length + message.output.length;
			break;
		case "branchSummary":
			characters += message.summary.length;
			break;
		default:
			add(message.content);
	}
	return Math.ceil(characters / 4);
}

/** Tokens of the whole context as the provider counted them (input side plus the reply). */
export function usageTokens(usage: Usage): number {
	return usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
}

/** A reply whose usage describes the context it was given (not an error, not aborted, not zero). */
export function hasValidUsage(message: AgentMessage): message is AssistantMessage {
	return (
		message.role === "assistant" &&
		message.stopReason !== "error" &&
		message.stopReason !== "aborted" &&
		usageTokens(message.usage) > 0
	);
}

/**
 * The current context size: the last reply's reported usage plus an estimate for what came
 * after it. Undefined when no reply has reported usage since `since` (e.g. a compaction).
 */
export function estimateContextTokens(messages: readonly AgentMessage[], sinceIndex = 0): number | undefined {
	for (let index = messages.length - 1; index >= sinceIndex; index--) {
		const message = messages[index] as AgentMessage;
		if (!hasValidUsage(message)) continue;
		let tokens = usageTokens(message.usage);
		for (const later of messages.slice(index + 1)) tokens += estimateTokens(later);
		return tokens;
	}
	return undefined;
}

/** Counts and totals over every message entry of the session (all branches). */
export function sessionStats(input: {
	sessionFile?: string;
	sessionId: string;
	entries: readonly SessionEntry[];
	model: Model | undefined;
	contextTokens: number | null | undefined;
}): SessionStats {
	const stats: SessionStats = {
		sessionId: input.sessionId,
		userMessages: 0,
		assistantMessages: 0,
		toolCalls: 0,
		toolResults: 0,
		totalMessages: 0,
		tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		cost: 0,
	};
	if (input.sessionFile) stats.sessionFile = input.sessionFile;
	for (const entry of input.entries) {
		if (entry.type !== "message") continue;
		const message = (entry as { message: AgentMessage }).message;
		stats.totalMessages++;
		if (message.role === "user") stats.userMessages++;
		else if (message.role === "toolResult") stats.toolResults++;
		else if (message.role === "assistant") {
			stats.assistantMessages++;
			stats.toolCalls += message.content.filter((block) => block.type === "toolCall").length;
			stats.tokens.input += message.usage.input;
			stats.tokens.output += message.usage.output;
			stats.tokens.cacheRead += message.usage.cacheRead;
			stats.tokens.cacheWrite += message.usage.cacheWrite;
			stats.cost += message.usage.cost.total;
		}
	}
	const tokens = stats.tokens;
	tokens.total = tokens.input + tokens.output + tokens.cacheRead + tokens.cacheWrite;
	const window = input.model?.contextWindow ?? 0;
	if (window > 0 && input.contextTokens !== undefined) {
		const used = input.contextTokens;
		stats.contextUsage = {
			tokens: used,
			contextWindow: window,
			percent: used === null ? null : Math.round((used / window) * 10_000) / 100,
		};
	}
	return stats;
}

/**
 * What `context_usage` reports: the context's tokens (`contextTokens`, or with `reply`, which is
 * announced before it joins the conversation, counted in) against the model's window. Undefined
 * without a known window.
 */
export function contextUsage(
	contextWindow: number,
	contextTokens: number | null,
	reply?: AssistantMessage,
): { tokens: number | null; contextWindow: number; percent: number | null } | undefined {
	if (contextWindow <= 0) return undefined;
	let tokens = contextTokens;
	if (reply && hasValidUsage(reply)) tokens = usageTokens(reply.usage);
	else if (reply && tokens !== null) tokens += estimateTokens(reply);
	const percent = tokens === null ? null : Math.round((tokens / contextWindow) * 10_000) / 100;
	return { tokens, contextWindow, percent };
}
