import type { AgentMessage } from "../agent/messages.js";
import type { ToolResultMessage } from "../llm/types.js";

export const INTERRUPTED_TOOL_RESULT_TEXT =
	"Tool execution was interrupted before this call finished (the session ended unexpectedly), so its result is unavailable. Check for side effects the call may have had before repeating it.";

/**
 * Gives every tool call that a crash left without a result a synthetic error result, placed right
 * after the results its assistant message did get. Only calls of replies that stopped to use tools
 * count: replies that ended in error, abort or length never ran their calls. The session file is
 * not changed; this only shapes the context.
 */
export function repairInterruptedToolCalls(messages: readonly AgentMessage[]): AgentMessage[] {
	const out: AgentMessage[] = [];
	for (let index = 0; index < messages.length; index++) {
		const message = messages[index];
		if (!message) continue;
		out.push(message);
		if (message.role !== "assistant" || message.stopReason !== "toolUse") continue;
		const answered = new Set<string>();
		for (let later = index + 1; later < messages.length; later++) {
			const next = messages[later];
			if (!next || next.role === "assistant") break;
			if (next.role === "toolResult") answered.add(next.toolCallId);
		}
		// Results that directly follow the reply stay in front of the synthetic ones.
		while (messages[index + 1]?.role === "toolResult") {
			index++;
			const result = messages[index];
			if (result) out.push(result);
		}
		for (const block of message.content) {
			if (block.type !== "toolCall" || answered.has(block.id)) continue;
			const result: ToolResultMessage = {
				role: "toolResult",
				toolCallId: block.id,
				toolName: block.name,
				content: [{ type: "text", text: INTERRUPTED_TOOL_RESULT_TEXT }],
				isError: true,
				timestamp: message.timestamp,
			};
			out.push(result);
		}
	}
	return out;
}
