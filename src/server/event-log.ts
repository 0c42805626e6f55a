import { textFrame } from "./frames.js";

/** How many events, and how many bytes of them, a session keeps for clients that resume. */
export interface ReplayLimits {
	events: number;
	bytes: number;
}

export const DEFAULT_REPLAY_LIMITS: ReplayLimits = { events: 50_000, bytes: 64 * 1024 * 1024 };

interface Logged {
	seq: number;
	/** The record as sent: its WebSocket frame, made once for every client. */
	frame: Buffer;
}

/**
 * The events of one session as every client sees them: each gets the next `seq` (from 1, no
 * gaps, the same for every client) and is kept, as sent, while it fits the replay limits.
 */
export class EventLog {
	private seqValue = 0;
	private readonly kept: Logged[] = [];
	private head = 0;
	private bytes = 0;

	/** `firstSeq`: the seq of the last event of the session's earlier life (a restarted server goes on from it). */
	constructor(
		private readonly limits: ReplayLimits = DEFAULT_REPLAY_LIMITS,
		firstSeq = 0,
	) {
		this.seqValue = firstSeq;
	}

	/** The seq of the last event (0 before the first). */
	get seq(): number {
		return this.seqValue;
	}

	/**
	 * Numbers an event record and keeps it; returns it as sent (the record with `seq`, in a
	 * WebSocket text frame), made once however many clients it goes to.
	 */
	append(record: Record<string, unknown>): Buffer {
		this.seqValue++;
		const frame = textFrame(JSON.stringify({ ...record, seq: this.seqValue }));
		this.kept.push({ seq: this.seqValue, frame });
		this.bytes += frame.length;
		while (this.kept.length - this.head > this.limits.events || this.bytes > this.limits.bytes) {
			const dropped = this.kept[this.head];
			if (!dropped) break;
			this.bytes -= dropped.frame.length;
			this.head++;
		}
		// Drop the forgotten part of the array now and then, not at every event.
		if (this.head > 1024 && this.head * 2 > this.kept.length) {
			this.kept.splice(0, this.head);
			this.head = 0;
		}
		return frame;
	}

	/**
	 * The events after `seq`, in order; undefined when some of them are no longer kept, or when
	 * `seq` is beyond the last event (a number of another life of the session: the client resyncs).
	 */
	after(seq: number): Buffer[] | undefined {
		if (seq === this.seqValue) return [];
		if (seq > this.seqValue) return undefined;
		const first = this.kept[this.head];
		if (!first || first.seq > seq + 1) return undefined;
		return this.kept.slice(this.head + (seq + 1 - first.seq)).map((logged) => logged.frame);
	}
}
