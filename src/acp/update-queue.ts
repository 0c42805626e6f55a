import type { AgentContext, SessionUpdate } from "@agentclientprotocol/sdk";

/**
 * The `session/update` notifications of one session, sent in order: each waits for the one before
 * it, so a response that awaits `drained()` goes out after every update of its turn.
 */
export class UpdateQueue {
	private tail: Promise<void> = Promise.resolve();
	private closed = false;

	constructor(
		private readonly client: AgentContext,
		private readonly sessionId: () => string,
	) {}

	send(update: SessionUpdate): Promise<void> {
		if (this.closed) return this.tail;
		const params = { sessionId: this.sessionId(), update };
		this.tail = this.tail.then(() =>
			this.client.notify("session/update", params).catch((error: unknown) => {
				// The connection is gone (the client left): nothing more can be told.
				process.stderr.write(`Warning: could not send a session update: ${errorText(error)}\n`);
			}),
		);
		return this.tail;
	}

	/** Resolves once every update sent so far has been written. */
	drained(): Promise<void> {
		return this.tail;
	}

	/** Later updates are dropped (the session was closed). */
	close(): void {
		this.closed = true;
	}
}

export function errorText(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}
