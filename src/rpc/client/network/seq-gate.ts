import type { RpcEvent } from "../types.js";
import { isDialog } from "../ui.js";

/** What the gate made of an event. */
export type Admission = { admit: true; missed?: { from: number; to: number } } | { admit: false };

/** The id of a request the server asks again after an attach: a tool approval or a dialog. */
function askedId(event: RpcEvent): string | undefined {
	if (event.type === "tool_approval_request") return event.id;
	if (event.type === "extension_ui_request" && isDialog(event)) return event.id;
	return undefined;
}

/** The id of the request an event closes. */
function closedId(event: RpcEvent): string | undefined {
	return event.type === "tool_approval_resolved" || event.type === "extension_ui_resolved" ? event.id : undefined;
}

/**
 * Lets each numbered event of the attached session through once, in order: an event whose `seq`
 * is not above the last one let through is a duplicate (a replay that overlaps what arrived
 * before the connection dropped) and is held back. A `resync` moves the count to its `seq`.
 *
 * One exception: after a plain attach or a resync, the server asks again the tool approvals and
 * dialogs still open, as first sent (with their old `seq`). Such a request passes when this
 * client has not seen it yet, and only then.
 */
export class SeqGate {
	private lastSeq = 0;
	/** Approval requests and dialogs let through and not resolved yet. */
	private readonly asked = new Set<string>();

	/** The `seq` of the last event let through (0 before any). */
	get last(): number {
		return this.lastSeq;
	}

	/** Attached anew: the events that follow are numbered after `seq`. */
	reset(seq: number): void {
		this.lastSeq = seq;
	}

	admit(event: RpcEvent): Admission {
		if (event.type === "resync") {
			this.lastSeq = event.seq;
			return { admit: true };
		}
		const seq = event.seq;
		// Not numbered: the output a command streams to its sender (bash), never replayed.
		if (typeof seq !== "number") return { admit: true };
		const asked = askedId(event);
		if (seq <= this.lastSeq) {
			if (asked === undefined || this.asked.has(asked)) return { admit: false };
			this.asked.add(asked);
			return { admit: true };
		}
		const missed = seq > this.lastSeq + 1 ? { from: this.lastSeq + 1, to: seq - 1 } : undefined;
		this.lastSeq = seq;
		if (asked !== undefined) this.asked.add(asked);
		const closed = closedId(event);
		if (closed !== undefined) this.asked.delete(closed);
		return missed ? { admit: true, missed } : { admit: true };
	}
}
