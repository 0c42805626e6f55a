import { serializeRecord } from "./framing.js";

/** What the writer needs of stdout. */
export interface OutputStream {
	write(chunk: string, callback?: (error?: Error | null) => void): boolean;
	once(event: "drain", listener: () => void): unknown;
	on(event: "error", listener: (error: Error) => void): unknown;
}

/** Buffered bytes above which producers are asked to wait. */
const HIGH_WATER_BYTES = 1024 * 1024;

/**
 * The single writer of protocol records. Records keep their order; records produced in the same
 * tick go out in one write. When stdout is slow, `write` returns a promise that resolves once the
 * backlog has drained, so a producer that awaits it (the agent loop) slows down instead of
 * growing memory. After a write error (the reader went away) records are dropped and `onBroken`
 * is called once.
 */
export class OutputWriter {
	private pending: string[] = [];
	private pendingBytes = 0;
	private scheduled = false;
	private congested = false;
	private broken = false;
	private drainWaiters: (() => void)[] = [];
	private flushWaiters: (() => void)[] = [];
	private inFlight = 0;

	constructor(
		private readonly stream: OutputStream,
		private readonly onBroken: (error: Error) => void = () => undefined,
	) {
		stream.on("error", (error) => this.fail(error));
	}

	/** Queues one record. Returns a promise only when the caller should wait for stdout. */
	write(record: unknown): Promise<void> | undefined {
		if (this.broken) return undefined;
		const line = serializeRecord(record);
		this.pending.push(line);
		this.pendingBytes += line.length;
		if (!this.scheduled) {
			this.scheduled = true;
			setImmediate(() => this.flushPending());
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

	private flushPending(): void {
		this.scheduled = false;
		if (this.pending.length === 0 || this.broken) return;
		const chunk = this.pending.length === 1 ? (this.pending[0] as string) : this.pending.join("");
		this.pending = [];
		this.pendingBytes = 0;
		this.inFlight++;
		const accepted = this.stream.write(chunk, (error) => {
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
