import type { ImageContent, Message, TextContent, UserMessage } from "../llm/types.js";

/** Output of a command run directly by the user (RPC `bash`), handed to the model on the next prompt. */
export interface BashExecutionMessage {
	role: "bashExecution";
	command: string;
	output: string;
	/** Absent when the command was cancelled or reported no code. */
	exitCode?: number;
	cancelled: boolean;
	truncated: boolean;
	fullOutputPath?: string;
	/** Kept in the session but never sent to the model. */
	excludeFromContext?: boolean;
	timestamp: number;
}

/** A message an extension or the runtime adds (compaction text, notes). */
export interface CustomMessage {
	role: "custom";
	customType: string;
	content: string | (TextContent | ImageContent)[];
	/** Whether UIs should show it. */
	display: boolean;
	details?: unknown;
	excludeFromContext?: boolean;
	timestamp: number;
}

/** The summary of a branch the conversation came back from. */
export interface BranchSummaryMessage {
	role: "branchSummary";
	summary: string;
	fromId: string;
	timestamp: number;
}

/** Every message a conversation can hold. */
export type AgentMessage = Message | BashExecutionMessage | CustomMessage | BranchSummaryMessage;

export const BRANCH_SUMMARY_INTRO =
	"The conversation went down another branch and came back; this is a summary of that branch:";

/** The user-visible text of a bash execution, as the model receives it. */
export function bashExecutionText(message: BashExecutionMessage): string {
	const lines = [`Ran \`${message.command}\``];
	lines.push(message.output ? `\`\`\`\n${message.output.replace(/\n$/, "")}\n\`\`\`` : "(no output)");
	if (message.cancelled) lines.push("(command cancelled)");
	else if (message.exitCode !== undefined && message.exitCode !== 0)
		lines.push(`Command exited with code ${message.exitCode}`);
	if (message.truncated && message.fullOutputPath)
		lines.push(`[Output truncated. Full output: ${message.fullOutputPath}]`);
	return lines.join("\n");
}

function hasVisibleContent(content: UserMessage["content"]): boolean {
	if (typeof content === "string") return content.trim().length > 0;
	return content.some((block) => block.type === "image" || block.text.trim().length > 0);
}

/**
 * The messages a provider receives: user, assistant and tool results as they are; custom messages,
 * bash executions and branch summaries become user messages (unless excluded from context); user
 * messages with nothing visible are dropped.
 */
export function convertToLlm(messages: readonly AgentMessage[]): Message[] {
	const out: Message[] = [];
	for (const message of messages) {
		switch (message.role) {
			case "user":
				if (hasVisibleContent(message.content)) {
					out.push(
						typeof message.content === "string"
							? message
							: { ...message, content: message.content.filter((block) => block.type === "image" || block.text) },
					);
				}
				break;
			case "assistant":
			case "toolResult":
				out.push(message);
				break;
			case "custom": {
				if (message.excludeFromContext || !hasVisibleContent(message.content)) break;
				const content =
					typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content;
				out.push({ role: "user", content, timestamp: message.timestamp });
				break;
			}
			case "bashExecution":
				if (!message.excludeFromContext) {
					out.push({
						role: "user",
						content: [{ type: "text", text: bashExecutionText(message) }],
						timestamp: message.timestamp,
					});
				}
				break;
			case "branchSummary":
				if (message.summary.trim()) {
					const text = `${BRANCH_SUMMARY_INTRO}\n\n<summary>\n${message.summary}\n</summary>`;
					out.push({ role: "user", content: [{ type: "text", text }], timestamp: message.timestamp });
				}
				break;
		}
	}
	return out;
}

/** The text of a message's text blocks (for user, custom and assistant messages). */
export function messageText(message: AgentMessage): string {
	if (message.role === "bashExecution") return bashExecutionText(message);
	if (message.role === "branchSummary") return message.summary;
	const content = message.content;
	if (typeof content === "string") return content;
	return content
		.filter((block): block is TextContent => block.type === "text")
		.map((block) => block.text)
		.join("");
}
