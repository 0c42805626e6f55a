import type { Duplex } from "node:stream";
import type { WebSocket } from "ws";
import type { RecordSink } from "../rpc/server.js";
import type { LiveSession } from "./live-session.js";
import type { StoredToken } from "./tokens.js";

/** Close code for a client that fell behind (it resumes with afterSeq). */
export const CLOSE_TOO_SLOW = 4008;
/** How long a client's unsent bytes may stay over the limit before it counts as fallen behind. */
const SLOW_CLIENT_MS = 2000;
/** How long a client closed as too slow has to answer the close before its connection is dropped. */
const CLOSE_GRACE_MS = 1000;

/** One WebSocket client: its token, its session, and the records it is sent. */
export class Client {
	live: LiveSession | undefined;
	readonly sink: RecordSink;
	/** Set while the unsent bytes are over the limit: the check that closes the client if they stay so. */
	private behind: NodeJS.Timeout | undefined;

	/** Set while this turn's frames are held to go out together. */
	private corked = false;

	constructor(
		readonly socket: WebSocket,
		/** The connection under the WebSocket: frames sent in one turn of the event loop are written together. */
		private readonly raw: Duplex,
		readonly token: StoredToken,
		private readonly sendQueueBytes: number,
	) {
		this.sink = { write: (record) => this.sendText(JSON.stringify(record)) };
	}

	/**
	 * Sends a record's text. A client whose unsent bytes stay over the limit for SLOW_CLIENT_MS is
	 * closed (it resumes with afterSeq): a burst of events that a reading client drains at once does
	 * not count, a client that stopped reading does.
	 */
	sendText(text: string | Buffer): undefined {
		if (this.socket.readyState !== this.socket.OPEN) return undefined;
		if (!this.corked) {
			// A run's events come in bursts: one write for the burst, not a system call per frame.
			this.corked = true;
			this.raw.cork();
			setImmediate(() => {
				this.corked = false;
				this.raw.uncork();
			});
		}
		// A Buffer is the record's UTF-8 text: sent as a text frame, not encoded again.
		this.socket.send(text, { binary: false });
		if (this.socket.bufferedAmount <= this.sendQueueBytes) {
			clearTimeout(this.behind);
			this.behind = undefined;
		} else if (this.behind === undefined) {
			this.behind = setTimeout(() => this.closeIfBehind(), SLOW_CLIENT_MS);
			this.behind.unref();
		}
		return undefined;
	}

	/** Sends a `success:false` response. */
	sendError(command: string, message: string, id?: unknown): void {
		const response: Record<string, unknown> = { type: "response", command, success: false, error: message };
		if (id !== undefined) response.id = id;
		this.sendText(JSON.stringify(response));
	}

	private closeIfBehind(): void {
		this.behind = undefined;
		if (this.socket.bufferedAmount <= this.sendQueueBytes) return;
		this.socket.close(CLOSE_TOO_SLOW, "too slow: reconnect and attach with afterSeq");
		this.live?.detach(this);
		// A client that reads nothing never answers the close either: its connection is dropped.
		setTimeout(() => this.socket.terminate(), CLOSE_GRACE_MS).unref();
	}
}
