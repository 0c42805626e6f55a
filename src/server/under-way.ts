import type { AssistantMessage, Usage } from "../llm/types.js";
import { applyReplyDelta, type InProgress, type ToolUnderWay } from "../rpc/streamed-reply.js";

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isAssistant(value: unknown): value is AssistantMessage {
	return isObject(value) && value.role === "assistant" && Array.isArray(value.content);
}

function isUsage(value: unknown): value is Usage {
	return isObject(value) && typeof value.input === "number" && isObject(value.cost);
}

/**
 * Follows the events a served session sends, to tell a client that attaches in the middle of a
 * run what it missed of it: the reply under way and the tools that run. It reads the records as
 * they are sent (delta only), never the agent's live partial reply, which may already hold deltas
 * that are still to be sent.
 */
export class UnderWay {
	private reply: AssistantMessage | undefined;
	private readonly tools = new Map<string, ToolUnderWay>();

	/** Follows one event, as sent. */
	see(record: Record<string, unknown>): void {
		switch (record.type) {
			case "message_start":
				// Its content may already hold deltas still to come: each block starts again with its *_start.
				if (isAssistant(record.message)) {
					const usage = record.message.usage;
					this.reply = { ...record.message, content: [], usage: { ...usage, cost: { ...usage.cost } } };
				}
				break;
			case "message_update":
				if (!this.reply) break;
				applyReplyDelta(this.reply.content, record.assistantMessageEvent);
				// The usage object of the record is the agent's live one: a copy.
				if (isUsage(record.usage)) this.reply.usage = { ...record.usage, cost: { ...record.usage.cost } };
				break;
			case "message_end":
				this.reply = undefined;
				break;
			case "tool_execution_start":
			case "tool_execution_update": {
				const id = typeof record.toolCallId === "string" ? record.toolCallId : undefined;
				if (id === undefined) break;
				const tool = this.tools.get(id) ?? {
					toolCallId: id,
					toolName: typeof record.toolName === "string" ? record.toolName : "",
					args: isObject(record.args) ? record.args : {},
				};
				if (record.type === "tool_execution_update") tool.partialResult = record.partialResult;
				this.tools.set(id, tool);
				break;
			}
			case "tool_execution_end":
				if (typeof record.toolCallId === "string") this.tools.delete(record.toolCallId);
				break;
			case "agent_end":
				this.reply = undefined;
				this.tools.clear();
				break;
		}
	}

	/** What runs now, or undefined when nothing does (it is sent as it is, at once). */
	now(): InProgress | undefined {
		if (!this.reply && this.tools.size === 0) return undefined;
		const tools = [...this.tools.values()];
		return this.reply ? { message: this.reply, tools } : { tools };
	}
}
