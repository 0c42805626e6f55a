import type { WebSocket } from "ws";
import { timerDelay } from "../../../llm/timer-limit.js";
import { RpcConnectionError, RpcConnectionLostError, RpcTimeoutError } from "../errors.js";
import type { Link, LinkHandlers, OutgoingRequest } from "../link.js";
import type { ConnectionEnd, NetworkClientOptions } from "../options.js";
import { parseRecord } from "../records.js";
import type { AttachResult, ConnectionState, ReadyEvent, RpcEvent, RpcResponse } from "../types.js";
import { isAttachResult, isResync } from "./records.js";
import { SeqGate } from "./seq-gate.js";
import { checkUrl, FATAL_STATUSES, openSocket } from "./socket.js";

/**
 * Commands sent again after a reconnect instead of failing as lost: those that only read, and
 * approval answers (a second answer to a request is refused, never applied twice).
 */
function resendable(type: string): boolean {
	return type.startsWith("get_") || type === "list_sessions" || type === "tool_approval_response";
}

/** One connection attempt: the socket once it exists. Callbacks of an old attempt are ignored. */
interface Attempt {
	socket: WebSocket | undefined;
}

/** The link's own `attach` (at start and after each reconnect), waiting for its answer. */
interface OwnAttach {
	id: string;
	afterSeq: number | undefined;
}

/**
 * The link to `atomic serve`: one WebSocket at a time, each text frame one record. `start()`
 * connects and attaches. When the connection drops it reconnects by itself (with a growing
 * pause) and attaches again with `afterSeq`, so the events it missed are replayed, or a `resync`
 * says they are gone; the SeqGate lets each event through once, in order. Commands sent while
 * disconnected wait for the reconnect; a command whose response was lost fails with
 * RpcConnectionLostError, except read-only ones, which are sent again.
 */
export class NetworkLink implements Link<AttachResult, ConnectionEnd> {
	readonly ended: Promise<ConnectionEnd>;
	readonly pid = undefined;
	/** The server's `ready` record (sent on every connection: its version and commands). */
	private readyRecord: ReadyEvent | undefined;
	readonly stderrTail = "";
	private readonly gate = new SeqGate();
	/** Commands waiting for a connection (read-only ones that were lost come first again). */
	private readonly queue: OutgoingRequest[] = [];
	/** Dialog answers written while disconnected, sent once attached again. */
	private readonly posts: string[] = [];
	/** Commands sent on the current connection, waiting for their response. */
	private readonly inFlight = new Map<string, OutgoingRequest>();
	private attempt: Attempt | undefined;
	/** The current connection is attached (or needs no attach): commands may be sent. */
	private usable = false;
	private ownAttach: OwnAttach | undefined;
	private session: string | undefined;
	private everAttached = false;
	private state: ConnectionState | undefined;
	private counter = 0;
	private failures = 0;
	private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
	private closeTimer: ReturnType<typeof setTimeout> | undefined;
	private startWaiter: { resolve(result: AttachResult): void; reject(error: Error): void } | undefined;
	private closeRequested = false;
	private endValue: ConnectionEnd | undefined;
	private lastClose: { code: number | null; reason: string } = { code: null, reason: "" };
	private resolveEnded: (end: ConnectionEnd) => void = () => undefined;

	constructor(
		private readonly options: NetworkClientOptions,
		private readonly handlers: LinkHandlers,
	) {
		this.session = options.sessionId;
		this.ended = new Promise((resolve) => {
			this.resolveEnded = resolve;
		});
	}

	get ready(): ReadyEvent | undefined {
		return this.readyRecord;
	}

	/** The attached session's id. */
	get sessionId(): string | undefined {
		return this.session;
	}

	/** The `seq` of the last event delivered (0 before any). */
	get lastSeq(): number {
		return this.gate.last;
	}

	async start(): Promise<AttachResult> {
		try {
			checkUrl(this.options.url);
			if (typeof this.options.token !== "string" || this.options.token === "") {
				throw new RpcConnectionError("A network client needs a token (atomic token create)");
			}
		} catch (error) {
			// The client ends here: later requests reject at once instead of waiting for a connection.
			this.fail(error instanceof Error ? error : new Error(String(error)));
			throw error;
		}
		const attached = new Promise<AttachResult>((resolve, reject) => {
			this.startWaiter = { resolve, reject };
		});
		const timeoutMs = this.options.startTimeoutMs ?? 30_000;
		const timer = setTimeout(
			() => this.fail(new RpcTimeoutError("attach", timeoutMs, "", `a connection to ${this.options.url}`)),
			timerDelay(timeoutMs),
		);
		this.setState("connecting");
		void this.connect();
		try {
			return await attached;
		} finally {
			clearTimeout(timer);
			this.startWaiter = undefined;
		}
	}

	close(): Promise<ConnectionEnd> {
		if (this.closeRequested || this.endValue) {
			this.closeRequested = true;
			return this.ended;
		}
		this.closeRequested = true;
		const socket = this.attempt?.socket;
		if (!socket) {
			this.finish(undefined);
			return this.ended;
		}
		socket.close(1000, "closed by the client");
		// A server that does not answer the close is cut off.
		this.closeTimer = setTimeout(() => socket.terminate(), timerDelay(this.options.closeTimeoutMs ?? 2000));
		return this.ended;
	}

	send(request: OutgoingRequest): void {
		if (this.usable) {
			this.transmit(request);
			return;
		}
		// Requests that timed out while waiting are forgotten here, so a long outage does not pile them up.
		const waiting = this.queue.filter((queued) => this.handlers.isPending(queued.id));
		this.queue.splice(0, this.queue.length, ...waiting, request);
	}

	post(text: string): void {
		if (this.usable) this.attempt?.socket?.send(text);
		// The dialog may still be open after the reconnect; an answer that comes too late is refused.
		else if (!this.endValue) this.posts.push(text);
	}

	// ------------------------------------------------------------------ connecting

	private async connect(): Promise<void> {
		const attempt: Attempt = { socket: undefined };
		this.attempt = attempt;
		const own = (): boolean => this.attempt === attempt;
		const socket = await openSocket(
			this.options.url,
			this.options.token,
			{ ca: this.options.ca },
			{
				onOpen: () => {
					if (own()) this.opened(attempt);
				},
				onText: (text) => {
					if (own()) this.received(text);
				},
				onBinary: () => {
					if (own()) this.handlers.onError(new Error("The server sent a binary frame: records are text frames"));
				},
				onClose: (code, reason, error) => {
					if (own()) this.dropped(code, reason, error);
				},
			},
		);
		if (own()) attempt.socket = socket;
		else socket?.terminate();
	}

	private opened(attempt: Attempt): void {
		const socket = attempt.socket;
		if (!socket) return;
		if (this.everAttached && this.session === undefined) {
			// Detached on purpose: nothing to attach again.
			this.becameUsable();
			return;
		}
		const afterSeq = this.everAttached ? this.gate.last : undefined;
		const id = this.nextId();
		this.ownAttach = { id, afterSeq };
		const record: Record<string, unknown> = { type: "attach", id, sessionId: this.session ?? null };
		if (this.options.cwd !== undefined) record.cwd = this.options.cwd;
		if (afterSeq !== undefined) record.afterSeq = afterSeq;
		socket.send(JSON.stringify(record));
	}

	private attached(response: RpcResponse, own: OwnAttach): void {
		if (!response.success) {
			const target = this.session === undefined ? "a new session" : `session ${this.session}`;
			this.fail(new RpcConnectionError(`Could not attach to ${target}: ${response.error}`));
			return;
		}
		const data = response.data;
		if (!isAttachResult(data)) {
			this.fail(new RpcConnectionError("The server answered attach without a session id, seq and state"));
			return;
		}
		this.session = data.sessionId;
		// A plain attach: the events that follow come after the answer's seq. After a reconnect the
		// replay (or a resync) follows; an answer below afterSeq is a server that numbers the session
		// anew (it sends a resync too): its numbers count from now on, so that none is dropped.
		if (own.afterSeq === undefined || data.seq < own.afterSeq) this.gate.reset(data.seq);
		this.failures = 0;
		if (!this.everAttached) {
			this.everAttached = true;
			this.startWaiter?.resolve(data);
		}
		this.becameUsable();
	}

	private becameUsable(): void {
		this.usable = true;
		this.setState("open");
		for (const text of this.posts.splice(0)) this.attempt?.socket?.send(text);
		const waiting = this.queue.splice(0);
		for (const request of waiting) if (this.handlers.isPending(request.id)) this.transmit(request);
	}

	private transmit(request: OutgoingRequest): void {
		this.inFlight.set(request.id, request);
		// On a socket that is closing the record goes nowhere; its close then fails the request as lost.
		this.attempt?.socket?.send(request.text);
	}

	// ------------------------------------------------------------------ records

	private received(text: string): void {
		const parsed = parseRecord({ ok: true, text });
		if (!parsed.ok) {
			this.handlers.onError(parsed.error);
			return;
		}
		const record = parsed.record;
		if (record.type === "ready") this.readyRecord = record;
		else if (record.type === "response") this.response(record);
		else if (record.type === "resync" && !isResync(record)) {
			this.handlers.onError(new Error(`Malformed resync record from the server: ${text.slice(0, 200)}`));
		} else this.event(record);
	}

	private response(response: RpcResponse): void {
		const id = response.id === undefined ? undefined : String(response.id);
		const own = this.ownAttach;
		if (own && id === own.id) {
			this.ownAttach = undefined;
			this.attached(response, own);
			return;
		}
		const request = id === undefined ? undefined : this.inFlight.get(id);
		if (id !== undefined && request) {
			this.inFlight.delete(id);
			if (response.success) this.track(request.type, response.data);
		}
		this.handlers.onRecord(response);
	}

	/** Follows the client's own attach and detach: the session a reconnect attaches to again. */
	private track(type: string, data: unknown): void {
		if (type === "detach") this.session = undefined;
		else if (type === "attach" && isAttachResult(data)) {
			this.session = data.sessionId;
			this.gate.reset(data.seq);
		}
	}

	private event(event: RpcEvent): void {
		const admission = this.gate.admit(event);
		if (!admission.admit) return;
		if (admission.missed) {
			const { from, to } = admission.missed;
			this.handlers.onError(new Error(`Events ${from} to ${to} of session ${this.session} never arrived`));
		}
		// A fork, a new session or a switch (from any client) gives the attached runtime another id:
		// a reconnect attaches there.
		if ((event.type === "session_changed" || event.type === "resync") && typeof event.sessionId === "string")
			this.session = event.sessionId;
		this.handlers.onRecord(event);
	}

	// ------------------------------------------------------------------ dropping and ending

	private dropped(code: number, reason: string, error: Error | undefined): void {
		this.attempt = undefined;
		this.usable = false;
		this.ownAttach = undefined;
		this.lastClose = { code, reason };
		const why = error?.message ?? (reason ? `closed with code ${code}: ${reason}` : `closed with code ${code}`);
		const resend: OutgoingRequest[] = [];
		for (const request of this.inFlight.values()) {
			if (resendable(request.type)) resend.push(request);
			else this.handlers.onRequestFailed(request.id, new RpcConnectionLostError(request.type, why));
		}
		this.inFlight.clear();
		this.queue.unshift(...resend);
		if (this.closeRequested) {
			this.finish(undefined);
			return;
		}
		if (error instanceof RpcConnectionError && error.status !== undefined && FATAL_STATUSES.has(error.status)) {
			this.fail(error);
			return;
		}
		if (!this.everAttached) {
			const status = error instanceof RpcConnectionError ? error.status : undefined;
			this.fail(new RpcConnectionError(`Could not connect to ${this.options.url}: ${why}`, status, { cause: error }));
			return;
		}
		if (this.options.reconnect === false) {
			this.fail(
				new RpcConnectionError(`The connection to ${this.options.url} was lost: ${why}`, undefined, { cause: error }),
			);
			return;
		}
		this.setState("reconnecting", new RpcConnectionError(`The connection to ${this.options.url} was lost: ${why}`));
		this.scheduleReconnect();
	}

	private scheduleReconnect(): void {
		const settings = this.options.reconnect === false ? {} : (this.options.reconnect ?? {});
		const minDelay = Math.max(1, settings.minDelayMs ?? 100);
		const maxDelay = Math.max(minDelay, settings.maxDelayMs ?? 5000);
		const full = Math.min(maxDelay, minDelay * 2 ** Math.min(this.failures, 30));
		this.failures++;
		// Between half and all of it, so that clients dropped together do not come back together.
		const delay = full / 2 + (Math.random() * full) / 2;
		this.reconnectTimer = setTimeout(() => {
			this.reconnectTimer = undefined;
			void this.connect();
		}, delay);
	}

	/** Ends the client with an error: a refused token, an attach refused, a failed start. */
	private fail(error: Error): void {
		if (this.endValue) return;
		this.attempt?.socket?.terminate();
		this.finish(error);
	}

	private finish(error: Error | undefined): void {
		if (this.endValue) return;
		this.attempt = undefined;
		this.usable = false;
		clearTimeout(this.reconnectTimer);
		clearTimeout(this.closeTimer);
		this.reconnectTimer = undefined;
		this.closeTimer = undefined;
		const end: ConnectionEnd = error ? { ...this.lastClose, error } : { ...this.lastClose };
		this.endValue = end;
		const reported = error ?? new RpcConnectionError(`The connection to ${this.options.url} was closed (close())`);
		this.startWaiter?.reject(reported);
		this.queue.length = 0;
		this.posts.length = 0;
		for (const request of this.inFlight.values()) {
			this.handlers.onRequestFailed(request.id, new RpcConnectionLostError(request.type, reported.message));
		}
		this.inFlight.clear();
		this.setState("closed", error);
		this.handlers.onEnd(reported);
		this.resolveEnded(end);
	}

	private setState(state: ConnectionState, reason?: Error): void {
		if (this.state === state) return;
		this.state = state;
		this.handlers.onStateChange(state, reason);
	}

	private nextId(): string {
		this.counter++;
		return `serve-link-${this.counter}`;
	}
}
