import type { AgentEvent } from "../../agent/types.js";
import type { CompactionResult } from "../../compaction/result.js";
import type { McpServerUpdate } from "../../mcp/types.js";
import type { ApprovalEvent } from "../approvals/tool-approvals.js";
import type { ContextUsage } from "../current/stats.js";
import type { WaitingOn } from "../runs/activity.js";
import type { SessionState } from "./api-types.js";

export type CompactionReason = "manual" | "threshold" | "overflow";

/**
 * Everything an AgentSession reports: the loop's events plus session-level ones.
 * `agent_settled` marks the end of a prompt's whole lifecycle (retries, queued follow-ups,
 * continuations): the last event a prompt produces.
 */
export type AgentSessionEvent =
	| AgentEvent
	| ApprovalEvent
	| { type: "agent_settled" }
	| {
			type: "session_changed";
			reason: "new" | "switch" | "fork" | "clone" | "import";
			sessionId: string;
			sessionFile?: string;
	  }
	| { type: "warning"; message: string }
	| { type: "extension_error"; extensionPath: string; event: string; error: string }
	/** `midTurn`: a threshold compaction between a run's tool calls and its next model call. */
	| { type: "compaction_start"; reason: CompactionReason; midTurn?: boolean }
	| {
			type: "compaction_end";
			reason: CompactionReason;
			/** The committed boundary, or null when nothing was written. */
			result: CompactionResult | null;
			aborted: boolean;
			/** The prompt continues automatically after this (overflow recovery). */
			willRetry: boolean;
			errorMessage?: string;
			/** Overflow recovery could not make the context fit. */
			unresolvedOverflow?: boolean;
	  }
	| {
			type: "summarization_retry_scheduled";
			attempt: number;
			maxAttempts: number;
			delayMs: number;
			errorMessage: string;
	  }
	| { type: "summarization_retry_attempt_start"; source: "compaction" | "branchSummary"; reason?: CompactionReason }
	| { type: "summarization_retry_finished" }
	/**
	 * Fields of get_state that changed, with their new values; an optional field that is no
	 * longer present (sessionName, sessionFile) is null. Sent whatever caused the change.
	 */
	| { type: "state_changed"; changes: StateChanges }
	/** After every assistant message and every compaction: what get_session_stats reports as contextUsage. */
	| ({ type: "context_usage" } & ContextUsage)
	/** A busy session that has reported nothing for a while says what it is waiting on. */
	| { type: "heartbeat"; waitingOn: WaitingOn; idleMs: number }
	/** An MCP server's status or tool list changed. */
	| McpServerUpdate
	/**
	 * The prompt goes on with the next model of the fallback tiers (`provider/id`): the model in
	 * use failed for good with `reason` (an error kind, or context_overflow after compaction).
	 */
	| { type: "model_fallback"; from: string; to: string; reason: string };

/** Changed get_state fields; optional fields that disappeared are null. */
export type StateChanges = { [K in keyof SessionState]?: SessionState[K] | null };

export type AgentSessionListener = (event: AgentSessionEvent) => void | Promise<void>;

/**
 * Fans events out to listeners; returns a promise only when a listener asked to be waited for.
 * Observers (the state tracker, the heartbeat) see each event first and are never waited for.
 */
export class EventHub {
	private readonly listeners = new Set<AgentSessionListener>();
	private readonly observers: ((event: AgentSessionEvent) => void)[] = [];

	subscribe(listener: AgentSessionListener): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** Sees every event before the listeners do. Must not throw. */
	observe(observer: (event: AgentSessionEvent) => void): void {
		this.observers.push(observer);
	}

	/** A problem nobody awaits (a failed session write, a resource that did not load): stderr and a `warning` event. */
	warn(message: string): void {
		process.stderr.write(`Warning: ${message}\n`);
		void this.emit({ type: "warning", message });
	}

	emit(event: AgentSessionEvent): Promise<void> | undefined {
		for (const observer of this.observers) observer(event);
		let pending: Promise<void>[] | undefined;
		for (const listener of this.listeners) {
			const result = listener(event);
			if (!result) continue;
			pending ??= [];
			pending.push(result);
		}
		return pending ? Promise.all(pending).then(() => undefined) : undefined;
	}
}
