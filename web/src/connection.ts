import { isRec, num, type Rec, str } from "./records.js";

export type Status = "connecting" | "open" | "reconnecting" | "login";

interface Waiting {
	resolve(data: unknown): void;
	reject(error: Error): void;
}

const FIRST_PAUSE_MS = 250;
const LONGEST_PAUSE_MS = 5000;

/**
 * The page's link to `atomic serve` (`/ws`, with the login cookie): one WebSocket at a time. It
 * reconnects by itself after a drop, attaches again with `afterSeq`, and lets each numbered event
 * through once, in order; a `resync` says what was missed is gone. Commands in flight when the
 * connection drops fail: they are not sent again (a prompt must not run twice).
 */
export class Connection {
	onEvent: (record: Rec) => void = () => undefined;
	onStatus: (status: Status) => void = () => undefined;
	onReady: (ready: Rec) => void = () => undefined;
	/** Called after each (re)attach with its answer. */
	onAttached: (data: Rec, resumed: boolean) => void = () => undefined;
	sessionId: string | undefined;
	private lastSeq = 0;
	private socket: WebSocket | undefined;
	private readonly waiting = new Map<string, Waiting>();
	private counter = 0;
	private everOpened = false;
	private pause = FIRST_PAUSE_MS;
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
			this.onStatus("open");
			if (this.sessionId !== undefined) void this.reattach();
		};
		socket.onmessage = (message) => {
			if (typeof message.data === "string") this.received(message.data);
		};
		socket.onclose = () => {
			if (this.socket !== socket) return;
			this.socket = undefined;
			this.attached = false;
			for (const [id, waiting] of this.waiting) {
				waiting.reject(new Error("The connection was lost: whether the command took effect is unknown"));
				this.waiting.delete(id);
			}
			// Never opened on this page: most likely no login (the server answered 401).
			if (!opened && !this.everOpened) {
				this.onStatus("login");
				return;
			}
			this.onStatus("reconnecting");
			setTimeout(() => this.connect(), this.pause);
			this.pause = Math.min(this.pause * 2, LONGEST_PAUSE_MS);
		};
	}

	/** Drops the connection (it reconnects by itself); for a person who wants to retry now. */
	drop(): void {
		this.socket?.close();
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
		this.socket?.send(JSON.stringify(record));
	}

	/** Attaches to a session (null: a new one); its events follow. */
	async attach(sessionId: string | null): Promise<Rec> {
		// The old session's events that come before the answer are not this session's.
		this.attached = false;
		const data = await this.request("attach", { sessionId });
		if (!isRec(data)) throw new Error("attach answered without data");
		this.sessionId = str(data.sessionId);
		this.lastSeq = num(data.seq) ?? 0;
		this.attached = true;
		this.onAttached(data, false);
		return data;
	}

	private async reattach(): Promise<void> {
		try {
			const data = await this.request("attach", { sessionId: this.sessionId ?? null, afterSeq: this.lastSeq });
			if (!isRec(data)) return;
			this.attached = true;
			this.onAttached(data, true);
		} catch (error) {
			this.onEvent({ type: "page_error", message: error instanceof Error ? error.message : String(error) });
		}
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
			const id = str(record.id);
			const waiting = this.waiting.get(id);
			if (!waiting) {
				if (record.success === false) this.onEvent({ type: "page_error", message: str(record.error) });
				return;
			}
			this.waiting.delete(id);
			if (record.success === true) waiting.resolve(record.data);
			else waiting.reject(new Error(str(record.error, "the command failed")));
			return;
		}
		if (record.type === "resync") {
			this.lastSeq = num(record.seq) ?? this.lastSeq;
			this.onEvent(record);
			return;
		}
		const seq = num(record.seq);
		if (seq !== undefined) {
			// Each event once, in order: a number already seen is a duplicate.
			if (seq <= this.lastSeq) return;
			this.lastSeq = seq;
		}
		if (this.attached || seq === undefined) this.onEvent(record);
	}
}
