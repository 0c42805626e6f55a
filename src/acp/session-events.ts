import type { ClientCapabilities, SessionUpdate } from "@agentclientprotocol/sdk";
import type { AgentMessage } from "../agent/messages.js";
import type { AssistantMessage } from "../llm/types.js";
import { randomUuid } from "../platform/random.js";
import type { AgentSession } from "../runtime/facade/agent-session.js";
import type { AgentSessionEvent } from "../runtime/facade/events.js";
import { configOptionSupport, configOptions } from "./config-options.js";
import { type ToolCallTracker, textBlock } from "./tool-calls.js";

/** What the event mapping reaches in its session. */
export interface SessionEventsHost {
	session: AgentSession;
	client: ClientCapabilities;
	tools: ToolCallTracker;
	send(update: SessionUpdate): Promise<void>;
	/** The commands may have changed (an MCP server's prompts). */
	commandsChanged(): void;
	/** An assistant message ended (the prompt's stop reason is read from the last one). */
	replied(message: AssistantMessage): void;
}

/** How a note reaches a client without notices: as a thought, as an agent message, or not at all. */
type Fallback = "thought" | "message" | "none";

/**
 * Maps an AgentSession's events onto `session/update` notifications: text and thinking deltas as
 * message and thought chunks (one messageId per reply), tool events through the tool call
 * tracker, usage after each reply and compaction, model and thinking changes as config option
 * updates, the session name as session info, compactions, retries and warnings as notes.
 * Listeners that return a promise hold the agent until the update is written (tool start and end,
 * so a diff's "before" text is read before the tool runs; text deltas and tool output updates, so
 * a slow client slows the agent instead of queueing updates).
 */
export class SessionEvents {
	private messageId: string | undefined;
	private streamedText = false;
	private compactionId: string | undefined;

	constructor(private readonly host: SessionEventsHost) {}

	handle(event: AgentSessionEvent): Promise<void> | undefined {
		const { host } = this;
		switch (event.type) {
			case "message_start":
				if (event.message.role === "assistant") {
					this.messageId = randomUuid();
					this.streamedText = false;
				}
				return undefined;
			case "message_update": {
				const delta = event.assistantMessageEvent;
				if (delta.type === "text_delta") {
					this.streamedText = true;
					return this.chunk("agent_message_chunk", delta.delta);
				}
				if (delta.type === "thinking_delta") return this.chunk("agent_thought_chunk", delta.delta);
				if (delta.type === "toolcall_start") host.tools.streamStarted(delta.id, delta.toolName);
				else if (delta.type === "toolcall_end") host.tools.streamEnded(delta.toolCall);
				return undefined;
			}
			case "message_end":
				return this.messageEnded(event.message);
			case "tool_execution_start":
				return host.tools.executionStarted(event.toolCallId, event.toolName, event.args);
			case "tool_execution_update":
				return host.tools.executionUpdated(event.toolCallId, event.partialResult);
			case "tool_execution_end":
				return host.tools.executionEnded(event.toolCallId, event.toolName, event.result, event.isError);
			case "auto_retry_start":
				return this.note(
					"warning",
					`Retrying (attempt ${event.attempt} of ${event.maxAttempts})`,
					event.errorMessage,
					"thought",
				);
			case "auto_retry_end":
				if (event.success) return undefined;
				return this.note("error", "Gave up retrying", event.finalError, "none");
			case "compaction_start":
				return this.compactionStarted(event.reason);
			case "compaction_end":
				return this.compactionEnded(event);
			case "context_usage":
				// Unknown right after a compaction: compactionEnded sent the compacted size instead.
				if (event.tokens === null) return undefined;
				return this.usage(event.tokens, event.contextWindow);
			case "state_changed": {
				const { changes } = event;
				const sends: Promise<void>[] = [];
				if (
					"model" in changes ||
					"thinkingLevel" in changes ||
					"autoCompactionEnabled" in changes ||
					"sandbox" in changes
				) {
					const options = configOptions(host.session, configOptionSupport(host.client));
					sends.push(host.send({ sessionUpdate: "config_option_update", configOptions: options }));
				}
				if (changes.approvalMode) {
					sends.push(host.send({ sessionUpdate: "current_mode_update", currentModeId: changes.approvalMode }));
				}
				if ("sessionName" in changes) {
					sends.push(host.send({ sessionUpdate: "session_info_update", title: changes.sessionName ?? null }));
				}
				return sends.length > 0 ? Promise.all(sends).then(() => undefined) : undefined;
			}
			case "mcp_server_update":
				host.commandsChanged();
				if (event.status !== "failed") return undefined;
				return this.note("warning", `MCP server ${event.name} failed`, event.error, "none");
			case "warning":
				return this.note("warning", event.message, undefined, "none");
			case "extension_error":
				return this.note("error", `Extension ${event.extensionPath} failed in ${event.event}`, event.error, "none");
			default:
				return undefined;
		}
	}

	private messageEnded(message: AgentMessage): Promise<void> | undefined {
		if (message.role === "custom" && message.display) {
			const text =
				typeof message.content === "string"
					? message.content
					: message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
			if (text.trim() === "") return undefined;
			return this.host.send({
				sessionUpdate: "agent_message_chunk",
				content: textBlock(text),
				messageId: randomUuid(),
			});
		}
		if (message.role !== "assistant") return undefined;
		this.host.replied(message);
		// A reply that arrived whole (no deltas) is still shown.
		if (this.streamedText) return undefined;
		const text = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
		return text === "" ? undefined : this.chunk("agent_message_chunk", text);
	}

	private chunk(kind: "agent_message_chunk" | "agent_thought_chunk", text: string): Promise<void> {
		return this.host.send({ sessionUpdate: kind, content: textBlock(text), messageId: this.messageId ?? null });
	}

	private compactionStarted(reason: string): Promise<void> | undefined {
		this.compactionId = randomUuid();
		if (this.host.client.session?.compaction) {
			return this.host.send({
				sessionUpdate: "compaction_update",
				compactionId: this.compactionId,
				status: "in_progress",
			});
		}
		return this.note("info", `Compacting the conversation (${reason})`, undefined, "none");
	}

	private compactionEnded(event: Extract<AgentSessionEvent, { type: "compaction_end" }>): Promise<void> | undefined {
		const compactionId = this.compactionId ?? randomUuid();
		this.compactionId = undefined;
		const result = event.result;
		const status = event.aborted ? "cancelled" : result ? "completed" : "failed";
		const summary = result
			? `Compacted the conversation: about ${result.tokensBefore} tokens before, ${result.stats.tokensAfter} after.`
			: event.aborted
				? "Compaction cancelled."
				: `Compaction failed${event.errorMessage ? `: ${event.errorMessage}` : "."}`;
		let sent: Promise<void> | undefined;
		if (this.host.client.session?.compaction) {
			const update: SessionUpdate = { sessionUpdate: "compaction_update", compactionId, status };
			if (result) update.summary = [textBlock(summary)];
			if (!result && event.errorMessage) update.error = event.errorMessage;
			sent = this.host.send(update);
		} else sent = this.note(result ? "info" : "warning", summary, undefined, "message");
		// The context is now the compacted one: its estimated size, until the next reply reports usage.
		const window = this.host.session.model?.contextWindow ?? 0;
		if (result && window > 0) sent = this.usage(result.stats.tokensAfter, window);
		return sent;
	}

	private usage(used: number, size: number): Promise<void> {
		return this.host.send({
			sessionUpdate: "usage_update",
			used,
			size,
			cost: { amount: this.host.session.getSessionStats().cost, currency: "USD" },
		});
	}

	/** A notice when the client shows them, else the fallback. */
	private note(
		severity: "info" | "warning" | "error",
		title: string,
		description: string | undefined,
		fallback: Fallback,
	) {
		if (this.host.client.session?.notices) {
			const update: SessionUpdate = { sessionUpdate: "notice", severity, title };
			if (description) update.description = description;
			return this.host.send(update);
		}
		if (fallback === "none") return undefined;
		const text = description ? `${title}: ${description}` : title;
		const kind = fallback === "thought" ? "agent_thought_chunk" : "agent_message_chunk";
		return this.host.send({ sessionUpdate: kind, content: textBlock(`\n_${text}_\n`), messageId: randomUuid() });
	}
}
