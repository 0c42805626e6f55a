import type { AssistantMessage } from "../../src/llm/types.js";

/** How the agent treats a failed reply, read from its structured error alone (never its text). */
export function errorClass(message: AssistantMessage): "transient" | "permanent" | "context_overflow" | "none" {
	if (!message.error) return "none";
	if (message.error.kind === "context_overflow") return "context_overflow";
	return message.error.retryable ? "transient" : "permanent";
}
