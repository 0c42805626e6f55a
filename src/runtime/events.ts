import type { AgentEvent } from "../agent/types.js";

/**
 * Everything an AgentSession reports: the loop's events plus session-level ones.
 * `agent_settled` marks the end of a prompt's whole lifecycle (retries, queued follow-ups,
 * continuations): the last event a prompt produces.
 */
export type AgentSessionEvent =
	| AgentEvent
	| { type: "agent_settled" }
	| {
			type: "session_changed";
			reason: "new" | "switch" | "fork" | "clone" | "import";
			sessionId: string;
			sessionFile?: string;
	  }
	| { type: "warning"; message: string };

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
