import type { AgentEvent } from "../agent/types.js";
import type { CompactionResult } from "../compaction/result.js";
import type { ApprovalEvent } from "./approvals.js";

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
	| { type: "summarization_retry_finished" };

export type AgentSessionListener = (event: AgentSessionEvent) => void | Promise<void>;

/** Fans events out to listeners; returns a promise only when a listener asked to be waited for. */
export class EventHub {
	private readonly listeners = new Set<AgentSessionListener>();

	subscribe(listener: AgentSessionListener): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	emit(event: AgentSessionEvent): Promise<void> | undefined {
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
