import { forgetSharedJson, LARGE_MESSAGE_CHARS } from "../session/shared-json.js";
import { forgetEscapedPart, serializeRecordParts } from "./framing.js";

/** What the writer needs of stdout. */
export interface OutputStream {
	write(chunk: string | Uint8Array, callback?: (error?: Error | null) => void): boolean;
	once(event: "drain", listener: () => void): unknown;
	on(event: "error", listener: (error: Error) => void): unknown;
}

/** Buffered bytes above which producers are asked to wait. */
const HIGH_WATER_BYTES = 1024 * 1024;
/**
 * A record this long (in characters) goes out as its own chunk: joining it would copy it again,
 * which costs more than the system call it saves (a command's output deltas are 64 KiB each).
 */
const OWN_CHUNK_CHARS = 16 * 1024;

function recordType(record: unknown): unknown {
	return typeof record === "object" && record !== null ? (record as { type?: unknown }).type : undefined;
}

/** A record to write: one line, or a line in parts (large messages shared between records). */
type Pending = string | string[];

/**
 * The single writer of protocol records. Records keep their order; events produced in the same
 * tick go out together, on setImmediate. A response is written at once, after whatever is
 * pending, so a small response never waits for a tick's worth of large events to be serialised
 * behind it. When stdout is slow, `write` returns a promise that resolves once the backlog has
 * drained, so a producer that awaits it (the agent loop) slows down instead of growing memory.
 * After a write error (the reader went away) records are dropped and `onBroken` is called once.
 */
export class OutputWriter {
	private pending: Pending[] = [];
	private pendingBytes = 0;
	private scheduled = false;
	private congested = false;
	private broken = false;
	private drainWaiters: (() => void)[] = [];
	private flushWaiters: (() => void)[] = [];
	private inFlight = 0;
	/**
	 * The last large part as UTF-8: a shared message goes out in several records (message_start,
	 * message_end, agent_end) and is encoded once. Dropped once a run's agent_end has been written.
	 */
	private encoded: { text: string; bytes: Buffer } | undefined;
	private endPending = false;

	constructor(
		private readonly stream: OutputStream,
		private readonly onBroken: (error: Error) => void = () => undefined,
	) {
		stream.on("error", (error) => this.fail(error));
	}

	/** Queues one record. Returns a promise only when the caller should wait for stdout. */
	write(record: unknown): Promise<void> | undefined {
		if (this.broken) return undefined;
		const parts = serializeRecordParts(record);
		const type = recordType(record);
		// agent_end is the last record of a run that carries its messages.
		if (type === "agent_end") {
			forgetSharedJson();
			forgetEscapedPart();
			this.endPending = true;
		}
		for (const part of parts) this.pendingBytes += part.length;
		this.pending.push(parts.length === 1 ? (parts[0] as string) : parts);
		// Responses answer a waiting client: they are never held back behind a tick's batch of events.
		if (type === "response") {
			this.flushPending();
		} else if (!this.scheduled) {
			this.scheduled = true;
			setImmediate(() => {
				this.scheduled = false;
				this.flushPending();
			});
		}
		if (this.congested || this.pendingBytes > HIGH_WATER_BYTES) {
			return new Promise((resolve) => this.drainWaiters.push(resolve));
		}
		return undefined;
	}

	/** Resolves once every record queued so far has been handed to the OS (or dropped after an error). */
	flush(): Promise<void> {
		this.flushPending();
		if (this.inFlight === 0 && !this.congested) return Promise.resolve();
		return new Promise((resolve) => this.flushWaiters.push(resolve));
	}

	get isBroken(): boolean {
		return this.broken;
	}

	/**
	 * Writes every pending record: small ones joined into one chunk, large ones each on their own,
	 * a record in parts part by part (a shared message is never copied into a joined line).
	 */
	private flushPending(): void {
		if (this.pending.length === 0 || this.broken) return;
		const lines = this.pending;
		this.pending = [];
		this.pendingBytes = 0;
		let batch: string[] = [];
		for (const line of lines) {
			if (typeof line === "string" && line.length < OWN_CHUNK_CHARS) {
				batch.push(line);
				continue;
			}
			if (batch.length > 0) this.writeChunk(batch.length === 1 ? (batch[0] as string) : batch.join(""));
			batch = [];
			if (typeof line === "string") this.writeChunk(line);
			else for (const part of line) this.writeChunk(part, part.length >= LARGE_MESSAGE_CHARS);
		}
		if (batch.length > 0) this.writeChunk(batch.length === 1 ? (batch[0] as string) : batch.join(""));
		if (this.endPending) {
			this.endPending = false;
			this.encoded = undefined;
		}
	}

	/** A large part's bytes, encoded once however many records carry it. */
	private bytesOf(text: string): Buffer {
		if (this.encoded?.text !== text) this.encoded = { text, bytes: Buffer.from(text, "utf8") };
		return this.encoded.bytes;
	}

	/** `shared`: a large message's JSON, which other records of the run may carry too. */
	private writeChunk(chunk: string, shared = false): void {
		if (chunk === "" || this.broken) return;
		this.inFlight++;
		const data = shared ? this.bytesOf(chunk) : chunk;
		const accepted = this.stream.write(data, (error) => {
			this.inFlight--;
			if (error) this.fail(error);
			this.settle();
		});
		if (!accepted && !this.congested) {
			this.congested = true;
			this.stream.once("drain", () => {
				this.congested = false;
				this.settle();
			});
		}
	}

	private settle(): void {
		if (this.congested || this.broken) {
			if (this.broken) this.releaseAll();
			return;
		}
		if (this.pendingBytes <= HIGH_WATER_BYTES) for (const resolve of this.drainWaiters.splice(0)) resolve();
		if (this.inFlight === 0 && this.pending.length === 0) for (const resolve of this.flushWaiters.splice(0)) resolve();
	}

	private fail(error: Error): void {
		if (this.broken) return;
		this.broken = true;
		this.pending = [];
		this.pendingBytes = 0;
		this.releaseAll();
		this.onBroken(error);
	}

	private releaseAll(): void {
		for (const resolve of this.drainWaiters.splice(0)) resolve();
		for (const resolve of this.flushWaiters.splice(0)) resolve();
	}
}
