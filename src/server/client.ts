import type { Duplex } from "node:stream";
import type { WebSocket } from "ws";
import type { RecordSink } from "../rpc/server.js";
import { textFrame } from "./frames.js";
import type { LiveSession } from "./live-session.js";
import type { StoredToken } from "./tokens.js";

/** Close code for a client that fell behind (it resumes with afterSeq). */
export const CLOSE_TOO_SLOW = 4008;
/** How long a client's unsent bytes may stay over the limit before it counts as fallen behind. */
const SLOW_CLIENT_MS = 2000;
/** How long a client closed as too slow has to answer the close before its connection is dropped. */
const CLOSE_GRACE_MS = 1000;

/**
 * One WebSocket client: its token, its session, and the records it is sent. Records go out as
 * frames written to the connection under the WebSocket: those of one turn of the event loop in
 * one write (a run's events come in bursts); its session's events in buffers shared by all its
 * clients (live-session.ts).
 * Control frames (close, pong) stay the WebSocket library's; they go out between whole frames.
 */
export class Client {
	live: LiveSession | undefined;
	readonly sink: RecordSink;
	/** Set while the unsent bytes are over the limit: the check that closes the client if they stay so. */
	private behind: NodeJS.Timeout | undefined;
	/** This turn's buffers of frames, written together at its end. */
	private pending: Buffer[] = [];
	private pendingBytes = 0;

	constructor(
		readonly socket: WebSocket,
		/** The connection under the WebSocket. */
		private readonly raw: Duplex,
		readonly token: StoredToken,
		private readonly sendQueueBytes: number,
	) {
		this.sink = { write: (record) => this.sendText(JSON.stringify(record)) };
	}

	/** Sends a record's text. */
	sendText(text: string): undefined {
		this.sendFrame(textFrame(text));
		return undefined;
	}

	/**
	 * Sends a framed record (textFrame) to this client alone, after the events its session has
	 * still to send (a response comes after the events that came before it, as on stdio).
	 */
	sendFrame(frame: Buffer): void {
		this.live?.flushEvents();
		this.deliver(frame);
	}

	/**
	 * Queues frames to go out at the end of this turn. A client whose unsent bytes stay over the
	 * limit for SLOW_CLIENT_MS is closed (it resumes with afterSeq): a burst of events that a
	 * reading client drains at once does not count, a client that stopped reading does.
	 */
	deliver(frames: Buffer): void {
		if (this.socket.readyState !== this.socket.OPEN) return;
		if (this.pending.length === 0) setImmediate(() => this.flush());
		this.pending.push(frames);
		this.pendingBytes += frames.length;
		if (this.raw.writableLength + this.pendingBytes <= this.sendQueueBytes) {
			clearTimeout(this.behind);
			this.behind = undefined;
		} else if (this.behind === undefined) {
			this.behind = setTimeout(() => this.closeIfBehind(), SLOW_CLIENT_MS);
			this.behind.unref();
		}
	}

	/** Sends a `success:false` response. */
	sendError(command: string, message: string, id?: unknown): void {
		const response: Record<string, unknown> = { type: "response", command, success: false, error: message };
		if (id !== undefined) response.id = id;
		this.sendText(JSON.stringify(response));
	}

	private flush(): void {
		const frames = this.pending;
		this.pending = [];
		this.pendingBytes = 0;
		// After a close frame nothing more may be sent.
		if (this.socket.readyState !== this.socket.OPEN) return;
		// Several buffers in one system call, none copied (the session's are shared by its clients).
		this.raw.cork();
		for (const buffer of frames) this.raw.write(buffer);
		this.raw.uncork();
	}

	/** Closes the connection after what was sent in this turn (a client that falls behind is closed without). */
	close(code: number, reason: string): void {
		this.live?.flushEvents();
		this.flush();
		this.socket.close(code, reason);
	}

	private closeIfBehind(): void {
		this.behind = undefined;
		if (this.raw.writableLength + this.pendingBytes <= this.sendQueueBytes) return;
		this.socket.close(CLOSE_TOO_SLOW, "too slow: reconnect and attach with afterSeq");
		this.live?.detach(this);
		// A client that reads nothing never answers the close either: its connection is dropped.
		setTimeout(() => this.socket.terminate(), CLOSE_GRACE_MS).unref();
	}
}
