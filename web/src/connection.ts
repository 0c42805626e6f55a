import { isRec, num, type Rec, str } from "./records.js";

export type Status = "connecting" | "open" | "reconnecting" | "login";

interface Waiting {
	resolve(data: unknown): void;
	reject(error: Error): void;
}

const FIRST_PAUSE_MS = 250;
const LONGEST_PAUSE_MS = 5000;
/** Close code of a connection whose token was revoked (docs/server.md). */
const CLOSE_REVOKED = 4003;

/**
 * Requests the server sends again after a plain `attach` or a `resync` while they are still open,
 * with the `seq` they first had: they are let through even when that number was seen (the view
 * keeps them by id, so applying one twice changes nothing).
 */
function isOpenRequest(record: Rec): boolean {
	return record.type === "tool_approval_request" || record.type === "extension_ui_request";
}

/**
 * The page's link to `atomic serve` (`/ws`, with the login cookie): one WebSocket at a time.
 *
 * Each numbered event of the attached session goes to `onEvent` once, in order: `lastSeq` is the
 * number of the last event let through, and a number at or below it is a duplicate. After a drop
 * it reconnects by itself and attaches again with `afterSeq: lastSeq`, so the missed events come
 * next, or a `resync` that replaces the view. Commands in flight when the connection drops fail:
 * they are never sent again (a prompt must not run twice).
 */
export class Connection {
	onEvent: (record: Rec) => void = () => undefined;
	onStatus: (status: Status, detail?: string) => void = () => undefined;
	onReady: (ready: Rec) => void = () => undefined;
	/** After each attach: `resumed` when it came back after a drop (the missed events follow). */
	onAttached: (data: Rec, resumed: boolean) => void = () => undefined;
	/** The session could not be attached again after a drop (the server no longer has it). */
	onLost: (error: Error) => void = () => undefined;
	/** The attached session (a fork or a new session of its runtime changes it: see `follow`). */
	sessionId: string | undefined;
	private lastSeq = 0;
	private socket: WebSocket | undefined;
	private readonly waiting = new Map<string, Waiting>();
	private counter = 0;
	private everOpened = false;
	private pause = FIRST_PAUSE_MS;
	/** Connections in a row that the server refused (it answered its health check). */
	private refusals = 0;
	/** False between sending an attach and its answer: the events then are the old session's. */
	private attached = false;

	connect(): void {
		this.onStatus(this.everOpened ? "reconnecting" : "connecting");
		const scheme = location.protocol === "https:" ? "wss" : "ws";
		const socket = new WebSocket(`${scheme}://${location.host}/ws`);
		this.socket = socket;
		let opened = false;
		socket.onopen = () => {
			opened = true;
			this.everOpened = true;
			this.pause = FIRST_PAUSE_MS;
			this.refusals = 0;
			this.onStatus("open");
			if (this.sessionId !== undefined) void this.reattach(this.sessionId);
		};
		socket.onmessage = (message) => {
			if (typeof message.data === "string") this.received(message.data);
		};
		socket.onclose = (closed) => {
			if (this.socket !== socket) return;
			this.socket = undefined;
			this.attached = false;
			for (const [id, waiting] of this.waiting) {
				waiting.reject(new Error("The connection was lost: whether the command took effect is unknown"));
				this.waiting.delete(id);
			}
			if (closed.code === CLOSE_REVOKED) {
				this.onStatus("login", "This login was revoked.");
				return;
			}
			if (!opened) {
				void this.refusedOrDown();
				return;
			}
			this.retryLater();
		};
	}

	/** Sends a command; resolves with its response's data, rejects with its error. */
	request(type: string, fields: Rec = {}): Promise<unknown> {
		const socket = this.socket;
		if (!socket || socket.readyState !== WebSocket.OPEN) {
			return Promise.reject(new Error("Not connected: reconnecting…"));
		}
		const id = `w${++this.counter}`;
		socket.send(JSON.stringify({ ...fields, type, id }));
		return new Promise((resolve, reject) => this.waiting.set(id, { resolve, reject }));
	}

	/** Sends a record that gets no response (a dialog's answer). */
	post(record: Rec): void {
		const socket = this.socket;
		if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(record));
	}

	/** Attaches to a session (null: a new one); its events follow. On failure the old one stays. */
	async attach(sessionId: string | null): Promise<Rec> {
		const previous = this.sessionId;
		this.attached = false;
		let data: unknown;
		try {
			data = await this.request("attach", { sessionId });
			if (!isRec(data) || typeof data.sessionId !== "string") throw new Error("attach answered without a session");
		} catch (error) {
			// The server keeps the connection on the session it had: its events resume where they stopped.
			if (previous !== undefined && this.socket) void this.reattach(previous);
			throw error;
		}
		this.sessionId = data.sessionId;
		this.lastSeq = num(data.seq) ?? 0;
		this.attached = true;
		this.onAttached(data, false);
		return data;
	}

	/** The attached session got another id (a fork, a new session of its runtime): reconnects go there. */
	follow(sessionId: string): void {
		this.sessionId = sessionId;
	}

	/** Attaches again after a drop, from the last event let through. */
	private async reattach(sessionId: string): Promise<void> {
		this.attached = false;
		let data: unknown;
		try {
			data = await this.request("attach", { sessionId, afterSeq: this.lastSeq });
		} catch (error) {
			const lost = error instanceof Error ? error : new Error(String(error));
			// A dropped connection reconnects and tries again; an answer saying no means the session is gone.
			if (this.socket?.readyState === WebSocket.OPEN) this.onLost(lost);
			return;
		}
		if (!isRec(data)) return;
		if (typeof data.sessionId === "string") this.sessionId = data.sessionId;
		this.attached = true;
		this.onAttached(data, true);
	}

	private retryLater(): void {
		this.onStatus(this.everOpened ? "reconnecting" : "connecting");
		setTimeout(() => this.connect(), this.pause);
		this.pause = Math.min(this.pause * 2, LONGEST_PAUSE_MS);
	}

	/**
	 * The WebSocket never opened. A browser is not told why: a server that answers its health
	 * check twice in a row after refusing refused the login (401: no cookie, or its token was
	 * revoked); else it is down or restarting, and the page keeps trying.
	 */
	private async refusedOrDown(): Promise<void> {
		let up = false;
		try {
			up = (await fetch("/health", { cache: "no-store" })).ok;
		} catch {
			up = false;
		}
		this.refusals = up ? this.refusals + 1 : 0;
		if (this.refusals >= 2) this.onStatus("login");
		else this.retryLater();
	}

	private received(text: string): void {
		let record: unknown;
		try {
			record = JSON.parse(text);
		} catch {
			this.onEvent({ type: "page_error", message: `The server sent a record that is not JSON: ${text.slice(0, 100)}` });
			return;
		}
		if (!isRec(record)) return;
		if (record.type === "ready") {
			this.onReady(record);
			return;
		}
		if (record.type === "response") {
			const waiting = this.waiting.get(str(record.id));
			if (!waiting) {
				if (record.success === false) this.onEvent({ type: "page_error", message: str(record.error) });
				return;
			}
			this.waiting.delete(str(record.id));
			if (record.success === true) waiting.resolve(record.data);
			else waiting.reject(new Error(str(record.error, "the command failed")));
			return;
		}
		// Until its attach is answered, what comes is the previous session's.
		if (!this.attached) return;
		if (record.type === "resync") {
			this.lastSeq = num(record.seq) ?? this.lastSeq;
			this.onEvent(record);
			return;
		}
		const seq = num(record.seq);
		if (seq !== undefined && seq <= this.lastSeq) {
			if (isOpenRequest(record)) this.onEvent(record);
			return;
		}
		if (seq !== undefined) this.lastSeq = seq;
		this.onEvent(record);
	}
}
