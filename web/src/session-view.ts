import type { AgentMessage } from "../../src/agent/messages.js";
import type { AssistantMessage, Usage } from "../../src/llm/types.js";
import { applyReplyDelta } from "../../src/rpc/streamed-reply.js";
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

/** The reply being streamed; `joinedLate` when the page attached after it began (its start is missing until it ends). */
export interface StreamingReply {
	message: AssistantMessage;
	joinedLate: boolean;
}

export interface QueueItems {
	steering: string[];
	followUp: string[];
}

/** How many of a snapshot's last messages a later `message_end` may repeat (it was being added as the snapshot was taken). */
const SNAPSHOT_TAIL = 6;

const DIALOG_METHODS = new Set(["select", "confirm", "input", "editor"]);

function isAgentMessage(value: unknown): value is AgentMessage {
	return isRec(value) && typeof value.role === "string";
}

function isAssistant(value: unknown): value is AssistantMessage {
	return isRec(value) && value.role === "assistant" && Array.isArray(value.content);
}

function isUsage(value: unknown): value is Usage {
	return isRec(value) && typeof value.input === "number" && typeof value.output === "number";
}

/** The texts of a queue (`queue_update`'s `steering` and `followUp`: strings). */
function texts(value: unknown): string[] {
	return Array.isArray(value) ? value.map((item) => (isRec(item) ? str(item.text) : str(item))) : [];
}

function outputOf(result: unknown): string {
	if (!isRec(result)) return "";
	return recs(result.content)
		.filter((block) => block.type === "text")
		.map((block) => str(block.text))
		.join("");
}

/** The same message, whichever way it came (a snapshot or its `message_end`). */
function messageKey(message: AgentMessage): string {
	return JSON.stringify(message);
}

/**
 * What the page knows of the attached session, built from its records: the conversation, the
 * reply being streamed, the tools that run, the open approvals and dialogs, the queue and the
 * state. The connection lets each event through once; this keeps the rest exact:
 *
 * - a fresh attach (`begin`) is followed by the conversation as the server holds it
 *   (`snapshot`); the events in between are kept, and a message both in the snapshot and in
 *   a `message_end` is shown once;
 * - a `resync` replaces everything with the session as it is now;
 * - approvals and dialogs are kept by id: one sent again after an attach is not doubled, and
 *   one already answered does not come back.
 */
export class SessionView {
	items: Item[] = [];
	streaming: StreamingReply | undefined;
	readonly tools = new Map<string, LiveTool>();
	readonly approvals = new Map<string, Rec>();
	readonly dialogs = new Map<string, Rec>();
	/** Requests and dialogs answered or closed since the view was reset: never shown again. */
	private readonly closed = new Set<string>();
	queue: QueueItems = { steering: [], followUp: [] };
	/** Whether `queue` is known (a `queue_update` came since the attach); else only its size is (`pendingMessageCount`). */
	queueKnown = false;
	state: Rec = {};
	/** Extension status entries by key, and widgets by key (fire-and-forget UI requests). */
	readonly statuses = new Map<string, string>();
	readonly widgets = new Map<string, { lines: string[]; above: boolean }>();
	/** The last context use reported (`context_usage`). */
	context: Rec | undefined;
	/** Set between `begin` and `snapshot`: the messages that ended meanwhile. */
	private loading: AgentMessage[] | undefined;
	/** Keys of the snapshot's last messages, which a later `message_end` may repeat. */
	private snapshotTail = new Set<string>();
	/** Counts changes of the items (a redraw of the finished part). */
	itemsVersion = 0;
	private itemsTouched = false;
	/** Counts every change. */
	version = 0;

	/** Whether the conversation is still to come (between `begin` and `snapshot`). */
	get loadingConversation(): boolean {
		return this.loading !== undefined;
	}

	/**
	 * A fresh attach: the session's state, and what runs (`inProgress` of the answer); its
	 * conversation follows with `snapshot`.
	 */
	begin(state: Rec, inProgress?: unknown): void {
		this.clear(state);
		this.underWay(inProgress);
		this.loading = [];
	}

	/**
	 * The conversation as the server held it when it answered (`get_messages`): it becomes the
	 * items, followed by the messages that ended since `begin` and are not in it.
	 */
	snapshot(messages: unknown[]): void {
		const held = messages.filter(isAgentMessage);
		const keys = new Set(held.slice(-SNAPSHOT_TAIL).map(messageKey));
		const later = (this.loading ?? []).filter((message) => !keys.has(messageKey(message)));
		const notes = this.items.filter((item) => item.kind === "note");
		this.items = [...held, ...later].map((message) => ({ kind: "message", message }));
		this.items.push(...notes);
		this.snapshotTail = keys;
		this.loading = undefined;
		this.changed(true);
	}

	/** Applies one record of the session; returns a notification to show, if it is one. */
	apply(event: Rec): string | undefined {
		const notice = this.applyOne(event);
		this.changed(this.itemsTouched);
		this.itemsTouched = false;
		return notice;
	}

	private changed(items: boolean): void {
		this.version++;
		if (items) this.itemsVersion++;
	}

	private clear(state: Rec): void {
		this.items = [];
		this.streaming = undefined;
		this.tools.clear();
		this.approvals.clear();
		this.dialogs.clear();
		this.closed.clear();
		this.queue = { steering: [], followUp: [] };
		this.queueKnown = false;
		this.statuses.clear();
		this.widgets.clear();
		this.context = undefined;
		this.state = { ...state };
		this.snapshotTail = new Set();
		this.loading = undefined;
		this.changed(true);
	}

	private applyOne(event: Rec): string | undefined {
		switch (event.type) {
			case "resync": {
				this.clear(isRec(event.state) ? event.state : {});
				this.snapshot(Array.isArray(event.messages) ? event.messages : []);
				this.underWay(event.inProgress);
				this.note("Reconnected after missing some events: this is the session as it is now.", "info");
				return undefined;
			}
			case "state_changed":
				if (isRec(event.changes)) this.state = { ...this.state, ...event.changes };
				return undefined;
			case "message_start":
				if (isAssistant(event.message))
					this.streaming = { message: { ...event.message, content: [] }, joinedLate: false };
				return undefined;
			case "message_update":
				this.update(event.assistantMessageEvent, event.usage);
				return undefined;
			case "message_end":
				this.ended(event.message);
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
				// A tool that started before the page attached shows from its first update on.
				const id = str(event.toolCallId);
				const tool = this.tools.get(id) ?? { id, name: str(event.toolName), args: event.args, output: "" };
				tool.output = outputOf(event.partialResult);
				this.tools.set(id, tool);
				return undefined;
			}
			case "tool_execution_end":
				this.tools.delete(str(event.toolCallId));
				return undefined;
			case "tool_approval_request":
				if (!this.closed.has(str(event.id))) this.approvals.set(str(event.id), event);
				return undefined;
			case "tool_approval_resolved":
				this.closed.add(str(event.id));
				this.approvals.delete(str(event.id));
				return undefined;
			case "extension_ui_request":
				return this.uiRequest(event);
			case "extension_ui_resolved":
				this.closed.add(str(event.id));
				this.dialogs.delete(str(event.id));
				return undefined;
			case "queue_update":
				this.queue = { steering: texts(event.steering), followUp: texts(event.followUp) };
				this.queueKnown = true;
				return undefined;
			case "context_usage":
				this.context = event;
				return undefined;
			case "auto_retry_start":
				this.note(
					`Retrying (attempt ${num(event.attempt) ?? "?"} of ${num(event.maxAttempts) ?? "?"}) after: ${str(event.errorMessage, "an error")}`,
					"error",
				);
				return undefined;
			case "auto_retry_end":
				if (event.success !== true) this.note(`Gave up retrying: ${str(event.finalError, "the error stays")}`, "error");
				return undefined;
			case "compaction_start":
				this.note(`Compacting the conversation (${str(event.reason, "manual")})…`, "info");
				return undefined;
			case "compaction_end":
				this.note(this.compactionText(event), typeof event.errorMessage === "string" ? "error" : "info");
				return undefined;
			case "model_fallback":
				this.note(`${str(event.from)} failed (${str(event.reason)}): going on with ${str(event.to)}.`, "error");
				return undefined;
			case "warning":
				this.note(str(event.message, "A warning without text"), "error");
				return undefined;
			case "extension_error":
				this.note(`Extension ${str(event.extensionPath)} failed (${str(event.event)}): ${str(event.error)}`, "error");
				return undefined;
			case "page_error":
				return str(event.message);
			default:
				return undefined;
		}
	}

	private compactionText(event: Rec): string {
		if (typeof event.errorMessage === "string") return `Compaction failed: ${event.errorMessage}`;
		if (event.aborted === true) return "Compaction cancelled.";
		if (event.result === null) return "Nothing was compacted.";
		return "The conversation was compacted; the model now reads it in its compacted form.";
	}

	private note(text: string, tone: "info" | "error"): void {
		this.items.push({ kind: "note", text, tone });
		this.itemsTouched = true;
	}

	private ended(message: unknown): void {
		if (!isAgentMessage(message)) return;
		if (isAssistant(message)) this.streaming = undefined;
		if (this.snapshotTail.size > 0) {
			if (this.snapshotTail.delete(messageKey(message))) return;
			// A message the snapshot did not have: the ones after it cannot be in it either.
			this.snapshotTail.clear();
		}
		this.loading?.push(message);
		this.items.push({ kind: "message", message });
		this.itemsTouched = true;
	}

	private uiRequest(event: Rec): string | undefined {
		const method = str(event.method);
		const id = str(event.id);
		if (DIALOG_METHODS.has(method)) {
			if (!this.closed.has(id)) this.dialogs.set(id, event);
			return undefined;
		}
		if (method === "notify") return str(event.message);
		if (method === "setStatus") {
			const key = str(event.statusKey);
			if (typeof event.statusText === "string") this.statuses.set(key, event.statusText);
			else this.statuses.delete(key);
		} else if (method === "setWidget") {
			const key = str(event.widgetKey);
			const lines = Array.isArray(event.widgetLines)
				? event.widgetLines.filter((line) => typeof line === "string")
				: undefined;
			if (lines) this.widgets.set(key, { lines, above: event.widgetPlacement !== "belowEditor" });
			else this.widgets.delete(key);
		}
		return undefined;
	}

	/** The reply being streamed; made when the page attached after its start. */
	private reply(): StreamingReply {
		if (this.streaming) return this.streaming;
		const model = isRec(this.state.model) ? this.state.model : {};
		const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
		this.streaming = {
			joinedLate: true,
			message: {
				role: "assistant",
				content: [],
				api: "anthropic-messages",
				provider: str(model.provider, "?"),
				model: str(model.id, "?"),
				usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: zero },
				stopReason: "stop",
				timestamp: Date.now(),
			},
		};
		return this.streaming;
	}

	/** One streamed delta into the reply being shown. */
	private update(delta: unknown, usage: unknown): void {
		if (!isRec(delta)) return;
		const reply = this.reply().message;
		if (isUsage(usage)) reply.usage = usage;
		applyReplyDelta(reply.content, delta);
	}

	/**
	 * What the server said runs as of the attach or resync (`inProgress`): the reply so far, which
	 * the next deltas continue, and the tools that run with their output so far.
	 */
	private underWay(inProgress: unknown): void {
		if (!isRec(inProgress)) return;
		if (isAssistant(inProgress.message)) this.streaming = { message: inProgress.message, joinedLate: false };
		for (const tool of recs(inProgress.tools)) {
			const id = str(tool.toolCallId);
			this.tools.set(id, { id, name: str(tool.toolName), args: tool.args, output: outputOf(tool.partialResult) });
		}
	}
}
