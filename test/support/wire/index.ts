import type { NormalizedReply } from "../llm-server.js";
import { anthropicWire } from "./anthropic-messages.js";
import { googleWire } from "./google-generative-ai.js";
import { openaiCompletionsWire } from "./openai-completions.js";
import { openaiResponsesWire } from "./openai-responses.js";

export type WireApi = "anthropic-messages" | "openai-completions" | "openai-responses" | "google-generative-ai";

/**
 * One protocol's wire format: the complete SSE frames (each ending in a blank line) of a streamed
 * reply, and the JSON body of an HTTP error as that provider sends it.
 */
export interface Wire {
	frames(reply: NormalizedReply, requestBody: unknown): string[];
	errorBody(status: number, message: string): unknown;
}

const wires: Record<WireApi, Wire> = {
	"anthropic-messages": anthropicWire,
	"openai-completions": openaiCompletionsWire,
	"openai-responses": openaiResponsesWire,
	"google-generative-ai": googleWire,
};

export function wireFor(api: WireApi): Wire {
	return wires[api];
}

/** Formats one SSE frame. */
export function sse(data: unknown, event?: string): string {
	return `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
}
