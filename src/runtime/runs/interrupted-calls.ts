import type { AgentMessage } from "../../agent/messages.js";
import type { AssistantMessage, ToolCall } from "../../llm/types.js";
import { INTERRUPTED_TOOL_RESULT_TEXT } from "../../session/index.js";

/** Tool calls of the conversation's last reply that its run left without results. */
export interface InterruptedCalls {
	assistant: AssistantMessage;
	calls: ToolCall[];
}

function isStandIn(message: AgentMessage): boolean {
	if (message.role !== "toolResult" || !message.isError) return false;
	const [block] = message.content;
	return message.content.length === 1 && block?.type === "text" && block.text === INTERRUPTED_TOOL_RESULT_TEXT;
}

/**
 * The tool calls of the conversation's last reply that have no result of their own, when the
 * conversation ends there (the process stopped while they waited, e.g. for an approval). A
 * reopened session gives such calls stand-in error results in memory (never in the file);
 * `take` removes those from `messages`, so that the calls can be carried out now.
 */
export function interruptedCalls(messages: AgentMessage[]): { found: InterruptedCalls; take(): void } | undefined {
	let index = messages.length - 1;
	while (index >= 0 && messages[index]?.role === "toolResult") index--;
	const assistant = messages[index];
	if (assistant?.role !== "assistant" || assistant.stopReason !== "toolUse") return undefined;
	const results = messages.slice(index + 1);
	const answered = new Set(
		results
			.filter((result) => !isStandIn(result))
			.map((result) => (result.role === "toolResult" ? result.toolCallId : "")),
	);
	const calls = assistant.content.filter(
		(block): block is ToolCall => block.type === "toolCall" && !answered.has(block.id),
	);
	if (calls.length === 0) return undefined;
	return {
		found: { assistant, calls },
		take: () => {
			const kept = results.filter((result) => !isStandIn(result));
			messages.splice(index + 1, results.length, ...kept);
		},
	};
}
