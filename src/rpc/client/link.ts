import type { IncomingRecord } from "./records.js";
import type { ConnectionState, ReadyEvent } from "./types.js";

/** A command on its way: its id, its type and its record as text. */
export interface OutgoingRequest {
	id: string;
	type: string;
	text: string;
}

/** What a link tells the client. */
export interface LinkHandlers {
	/** Each record read, parsed and in order (a network link has already dropped duplicates). */
	onRecord(record: IncomingRecord): void;
	/** A request that will get no response: its record could not be sent, or its outcome is unknown. */
	onRequestFailed(id: string, error: Error): void;
	/** Whether a request still waits for its response (one that timed out meanwhile is not sent late). */
	isPending(id: string): boolean;
	/** Called once, when the link is gone for good: every request still pending fails with `error`. */
	onEnd(error: Error): void;
	onStateChange(state: ConnectionState, reason?: Error): void;
	/** Problems that belong to no request (a malformed record, a stream error). */
	onError(error: Error): void;
}

/**
 * How a client reaches the agent: a process it spawned (stdio) or a WebSocket to `atomic serve`.
 * Everything else (correlation, timeouts, event feeds, dialogs and approvals) is the client's.
 */
export interface Link<Started, Ended> {
	/** Resolves once commands can be sent (the process is ready; the session is attached). */
	start(): Promise<Started>;
	/** Ends the link; safe to call more than once. */
	close(): Promise<Ended>;
	/** Resolves once the link has ended (or failed to start). Never rejects. */
	readonly ended: Promise<Ended>;
	/** Sends a command; its response comes through `onRecord`, a failure through `onRequestFailed`. */
	send(request: OutgoingRequest): void;
	/** Sends a record that expects no response (a dialog answer); dropped when it cannot be sent. */
	post(text: string): void;
	readonly pid: number | undefined;
	readonly ready: ReadyEvent | undefined;
	readonly stderrTail: string;
}
