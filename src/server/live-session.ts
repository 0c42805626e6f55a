import { RpcApprovals } from "../rpc/approvals.js";
import type { RecordText } from "../rpc/framing.js";
import { type RecordSink, RpcServer } from "../rpc/server.js";
import type { AgentSession } from "../runtime/facade/agent-session.js";
import { EventLog, type ReplayLimits } from "./event-log.js";

/** A client attached to a session: it is sent every event of it, as text. */
export interface Attached {
	/** Sends one record's text (a numbered event, or a response). */
	sendText(text: string): void;
}

/**
 * One session held by `atomic serve`: its AgentSession, the log that numbers its events (`seq`),
 * the clients attached to it, and one dispatcher, so commands from every client run in arrival
 * order as on stdio. Responses go to the client that sent the command; events go to every
 * attached client, with the same `seq` for all.
 */
export class LiveSession {
	readonly log: EventLog;
	readonly approvals = new RpcApprovals();
	private readonly clients = new Set<Attached>();
	private readonly server: RpcServer;
	/** Approval requests still open, as sent (a client that attaches gets them again). */
	private readonly pending = new Map<string, string>();
	/** Who answered each approval request (the token's name), for its `tool_approval_resolved`. */
	private readonly answeredBy = new Map<string, string>();

	constructor(
		readonly session: AgentSession,
		limits?: ReplayLimits,
	) {
		this.log = new EventLog(limits);
		const broadcast: RecordSink = {
			write: (record) => {
				// Events come from the wire encoder: plain records.
				const text = this.log.append(this.annotate(isRecord(record) ? record : { value: record }));
				this.track(record, text);
				for (const client of this.clients) client.sendText(text);
				return undefined;
			},
		};
		this.server = new RpcServer(session, broadcast, undefined, undefined, this.approvals);
	}

	get id(): string {
		return this.session.getState().sessionId;
	}

	get attachedCount(): number {
		return this.clients.size;
	}

	/**
	 * Attaches a client. With `afterSeq`, first the events after it (exactly once, in order, before
	 * any new one), or `false` when some are no longer held (the caller sends a resync).
	 */
	attach(client: Attached, afterSeq: number | undefined): boolean {
		if (afterSeq !== undefined) {
			const missed = this.log.after(afterSeq);
			if (missed === undefined) {
				this.clients.add(client);
				return false;
			}
			for (const text of missed) client.sendText(text);
		}
		this.clients.add(client);
		return true;
	}

	detach(client: Attached): void {
		this.clients.delete(client);
	}

	/**
	 * A command of an attached client (`name`: its token's): its response, and what it streams,
	 * goes to `replyTo`.
	 */
	handle(record: RecordText, replyTo: RecordSink, name: string, answers?: string): void {
		if (answers !== undefined && this.pending.has(answers) && !this.answeredBy.has(answers)) {
			this.answeredBy.set(answers, name);
		}
		this.server.handleRecord(record, replyTo);
	}

	/** Sends a client the approval requests still open (after a plain attach or a resync). */
	sendPending(client: Attached): void {
		for (const text of this.pending.values()) client.sendText(text);
	}

	/** `tool_approval_resolved` names the token that answered, when a client did. */
	private annotate(record: Record<string, unknown>): Record<string, unknown> {
		if (record.type !== "tool_approval_resolved" || typeof record.id !== "string") return record;
		const name = this.answeredBy.get(record.id);
		this.answeredBy.delete(record.id);
		return name === undefined ? record : { ...record, client: name };
	}

	private track(record: unknown, text: string): void {
		if (!isRecord(record) || typeof record.id !== "string") return;
		if (record.type === "tool_approval_request") this.pending.set(record.id, text);
		else if (record.type === "tool_approval_resolved") this.pending.delete(record.id);
	}

	async dispose(): Promise<void> {
		await this.server.settle();
		this.server.detach();
		await this.session.dispose();
	}
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}
