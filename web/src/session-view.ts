import type { AgentMessage } from "../../src/agent/messages.js";
import type { AssistantMessage } from "../../src/llm/types.js";
import { isRec, num, type Rec, recs, str } from "./records.js";

/** One item of the conversation as shown: a message, or a note where something happened. */
export type Item = { kind: "message"; message: AgentMessage } | { kind: "note"; text: string; tone: "info" | "error" };

/** A tool call that runs now: its arguments and the output so far. */
export interface LiveTool {
	id: string;
	name: string;
	args: unknown;
	output: string;
}

export interface QueueItems {
	steering: string[];
	followUp: string[];
}

function isAgentMessage(value: unknown): value is AgentMessage {
	return isRec(value) && typeof value.role === "string";
}

function isAssistant(value: unknown): value is AssistantMessage {
	return isRec(value) && value.role === "assistant" && Array.isArray(value.content);
}

function texts(value: unknown): string[] {
	return recs(value).map((item) => str(item.text));
}

function outputOf(result: unknown): string {
	if (!isRec(result)) return "";
	return recs(result.content)
		.filter((block) => block.type === "text")
		.map((block) => str(block.text))
		.join("");
}

/**
 * What the page knows of the attached session, built from its events: the conversation, the
 * reply being streamed, the tools that run, the open approvals and dialogs, the queue and the
 * state. Each event is applied once (the connection sees to that); `resync` and a fresh attach
 * replace it all.
 */
export class SessionView {
	items: Item[] = [];
	streaming: AssistantMessage | undefined;
	readonly tools = new Map<string, LiveTool>();
	readonly approvals = new Map<string, Rec>();
	readonly dialogs = new Map<string, Rec>();
	queue: QueueItems = { steering: [], followUp: [] };
	state: Rec = {};
	/** Counts changes, so that the page redraws only what changed. */
	version = 0;

	reset(state: Rec, messages: unknown[]): void {
		this.items = messages.filter(isAgentMessage).map((message) => ({ kind: "message", message }));
		this.streaming = undefined;
		this.tools.clear();
		this.approvals.clear();
		this.dialogs.clear();
		this.queue = { steering: [], followUp: [] };
		this.state = state;
		this.version++;
	}

	/** Applies one event; returns a notification to show, if it is one. */
	apply(event: Rec): string | undefined {
		this.version++;
		switch (event.type) {
			case "resync":
				this.reset(isRec(event.state) ? event.state : {}, Array.isArray(event.messages) ? event.messages : []);
				this.items.push({
					kind: "note",
					text: "Reconnected: some events were missed, so the session is shown as it is now.",
					tone: "info",
				});
				return undefined;
			case "state_changed":
				if (isRec(event.changes)) Object.assign(this.state, event.changes);
				return undefined;
			case "message_start":
				if (isAssistant(event.message)) this.streaming = { ...event.message, content: [] };
				return undefined;
			case "message_update":
				this.update(event.assistantMessageEvent);
				return undefined;
			case "message_end":
				if (isAgentMessage(event.message)) this.items.push({ kind: "message", message: event.message });
				if (isAssistant(event.message)) this.streaming = undefined;
				return undefined;
			case "tool_execution_start":
				this.tools.set(str(event.toolCallId), {
					id: str(event.toolCallId),
					name: str(event.toolName),
					args: event.args,
					output: "",
				});
				return undefined;
			case "tool_execution_update": {
				const tool = this.tools.get(str(event.toolCallId));
				if (tool) tool.output = outputOf(event.partialResult);
				return undefined;
			}
			case "tool_execution_end":
				this.tools.delete(str(event.toolCallId));
				return undefined;
			case "tool_approval_request":
				this.approvals.set(str(event.id), event);
				return undefined;
			case "tool_approval_resolved":
				this.approvals.delete(str(event.id));
				return undefined;
			case "extension_ui_request":
				return this.uiRequest(event);
			case "extension_ui_resolved":
				this.dialogs.delete(str(event.id));
				return undefined;
			case "queue_update":
				this.queue = { steering: texts(event.steering), followUp: texts(event.followUp) };
				return undefined;
			case "auto_retry_start":
				this.note(
					`Retrying (attempt ${num(event.attempt) ?? "?"}) after: ${str(event.errorMessage, "an error")}`,
					"error",
				);
				return undefined;
			case "compaction_start":
				this.note("Compacting the conversation…", "info");
				return undefined;
			case "compaction_end":
				this.note(event.aborted === true ? "Compaction cancelled." : "The conversation was compacted.", "info");
				return undefined;
			case "model_fallback":
				this.note(`${str(event.from)} failed (${str(event.reason)}): going on with ${str(event.to)}.`, "error");
				return undefined;
			case "page_error":
				return str(event.message);
			default:
				return undefined;
		}
	}

	private note(text: string, tone: "info" | "error"): void {
		this.items.push({ kind: "note", text, tone });
	}

	private uiRequest(event: Rec): string | undefined {
		const method = str(event.method);
		if (["select", "confirm", "input", "editor"].includes(method)) {
			this.dialogs.set(str(event.id), event);
			return undefined;
		}
		return method === "notify" ? str(event.message) : undefined;
	}

	/** One streamed delta into the reply being shown. */
	private update(delta: unknown): void {
		const reply = this.streaming;
		if (!reply || !isRec(delta)) return;
		const index = num(delta.contentIndex) ?? 0;
		const content = reply.content;
		switch (delta.type) {
			case "text_start":
				content[index] = { type: "text", text: "" };
				break;
			case "text_delta": {
				const block = content[index];
				if (block?.type === "text") block.text += str(delta.delta);
				else content[index] = { type: "text", text: str(delta.delta) };
				break;
			}
			case "thinking_start":
				content[index] = { type: "thinking", thinking: "" };
				break;
			case "thinking_delta": {
				const block = content[index];
				if (block?.type === "thinking") block.thinking += str(delta.delta);
				break;
			}
			case "toolcall_end":
				if (isRec(delta.toolCall)) {
					const call = delta.toolCall;
					content[index] = {
						type: "toolCall",
						id: str(call.id),
						name: str(call.name),
						arguments: isRec(call.arguments) ? call.arguments : {},
					};
				}
				break;
		}
	}
}
