import { RpcApprovals } from "../rpc/approvals.js";
import { RpcExtensionUi } from "../rpc/extension-ui.js";
import type { Command, ExtensionUiResponse } from "../rpc/protocol/commands.js";
import { type RecordSink, RpcServer } from "../rpc/server.js";
import type { InProgress } from "../rpc/streamed-reply.js";
import type { AgentSession } from "../runtime/facade/agent-session.js";
import { EventLog, type ReplayLimits } from "./event-log.js";
import { UnderWay } from "./under-way.js";

/** A client attached to a session: it is sent every event of it. */
export interface Attached {
	/** Sends framed records to this client alone, after the session's events still to go out. */
	sendFrame(frame: Buffer): void;
	/** Queues frames the session sends to all its clients (the same buffer for each). */
	deliver(frames: Buffer): void;
}

/** What a served session is made with: where its approvals and dialogs go. */
export interface SessionHooks {
	approve: RpcApprovals["handler"];
	ui: RpcExtensionUi;
	cancelDialogs(): void;
}

/**
 * One session held by `atomic serve`: its AgentSession, the log that numbers its events (`seq`),
 * the clients attached to it, and one dispatcher, so commands from every client run in arrival
 * order as on stdio. Responses go to the client that sent the command; events go to every
 * attached client, with the same `seq` for all. Tool approvals and extension dialogs go to every
 * client; the first answer wins and the others are told (`tool_approval_resolved`,
 * `extension_ui_resolved`).
 */
export class LiveSession {
	readonly log: EventLog;
	readonly session: AgentSession;
	private readonly approvals = new RpcApprovals();
	private readonly ui: RpcExtensionUi;
	private readonly clients = new Set<Attached>();
	private readonly server: RpcServer;
	private readonly broadcast: RecordSink;
	/** Approval requests and dialogs still open, as sent (a client that attaches gets them again). */
	private readonly pending = new Map<string, Buffer>();
	/** Who answered each approval request or dialog (the token's name), for its resolved event. */
	private readonly answeredBy = new Map<string, string>();
	/** This turn's event frames, not yet given to the clients: one buffer for all of them at its end. */
	private batch: Buffer[] = [];
	/** The reply and tool calls under way, as the events sent so far tell them. */
	private readonly underWay = new UnderWay();
	/** Every id this runtime's session has had (a fork, a new session or a switch changes it). */
	private readonly ids = new Set<string>();
	/** When the last client left (for unloading idle sessions); undefined while one is attached. */
	private leftAt: number | undefined = Date.now();

	constructor(
		create: (hooks: SessionHooks) => AgentSession,
		limits?: ReplayLimits,
		firstSeq = 0,
		/** Told when a tool approval request opens or closes (the server keeps that across restarts). */
		private readonly approvalsChanged: () => void = () => undefined,
	) {
		this.log = new EventLog(limits, firstSeq);
		this.broadcast = {
			write: (record) => {
				// Events come from the wire encoder and the dialog bridge: plain records.
				const frame = this.log.append(this.annotate(isRecord(record) ? record : { value: record }));
				this.track(record, frame);
				if (isRecord(record)) this.underWay.see(record);
				if (isRecord(record) && record.type === "session_changed" && typeof record.sessionId === "string")
					this.ids.add(record.sessionId);
				if (this.clients.size === 0) return undefined;
				if (this.batch.length === 0) setImmediate(() => this.flushEvents());
				this.batch.push(frame);
				return undefined;
			},
		};
		this.ui = new RpcExtensionUi(
			(record) => void this.broadcast.write(record),
			undefined,
			(id) => this.dialogClosed(id),
		);
		this.session = create({
			approve: this.approvals.handler,
			ui: this.ui,
			cancelDialogs: () => this.ui.cancelAll(),
		});
		this.server = new RpcServer(this.session, this.broadcast, this.ui, undefined, this.approvals);
		this.ids.add(this.id);
	}

	get id(): string {
		return this.session.getState().sessionId;
	}

	/**
	 * Whether this runtime's session had `sessionId` before its current one: a client that was
	 * attached then resumes here, and the events it missed tell it the new id (`session_changed`).
	 */
	hadId(sessionId: string): boolean {
		return this.ids.has(sessionId) && sessionId !== this.id;
	}

	/**
	 * Gives the clients this turn's events, joined once into one buffer they all share. Called at
	 * the end of the turn, and before a client is sent anything of its own, so that it gets the
	 * events in their order with the rest.
	 */
	flushEvents(): void {
		const frames = this.batch;
		if (frames.length === 0) return;
		this.batch = [];
		const [only] = frames;
		const joined = frames.length === 1 && only ? only : Buffer.concat(frames);
		for (const client of this.clients) client.deliver(joined);
	}

	/** What the session streams as of its last event's seq (undefined when nothing runs). */
	get inProgress(): InProgress | undefined {
		return this.underWay.now();
	}

	get attachedCount(): number {
		return this.clients.size;
	}

	/** Whether the session may be unloaded: nobody attached for `idleMs`, nothing running or waiting. */
	idleFor(idleMs: number, now = Date.now()): boolean {
		if (this.leftAt === undefined || now - this.leftAt < idleMs) return false;
		return !this.session.isStreaming && !this.session.isCompacting && this.pending.size === 0;
	}

	/** Whether tool approval requests are open (a restarted server asks them again). */
	get waitsForApproval(): boolean {
		return this.approvals.openRequests > 0;
	}

	/**
	 * Attaches a client. With `afterSeq`, first the events after it (exactly once, in order, before
	 * any new one), or `false` when some are no longer held (the caller sends a resync).
	 */
	attach(client: Attached, afterSeq: number | undefined): boolean {
		// The events numbered so far go to the clients attached before this one.
		this.flushEvents();
		this.leftAt = undefined;
		if (afterSeq !== undefined) {
			const missed = this.log.after(afterSeq);
			if (missed === undefined) {
				this.clients.add(client);
				return false;
			}
			for (const frame of missed) client.sendFrame(frame);
		}
		this.clients.add(client);
		return true;
	}

	detach(client: Attached): void {
		this.flushEvents();
		this.clients.delete(client);
		if (this.clients.size === 0) this.leftAt = Date.now();
	}

	/** A command of an attached client (`name`: its token's): its response, and what it streams, goes to `replyTo`. */
	handle(command: Command, replyTo: RecordSink, name: string): void {
		if (command.type === "tool_approval_response") {
			const id = command.requestId;
			if (this.pending.has(id) && !this.answeredBy.has(id)) this.answeredBy.set(id, name);
		}
		this.server.handleCommand(command, replyTo);
	}

	/** A client's dialog answer: the first one decides; a later one is told the dialog is closed. */
	answerDialog(response: ExtensionUiResponse, replyTo: RecordSink, name: string): void {
		if (!this.pending.has(response.id)) {
			void replyTo.write({
				type: "response",
				command: "extension_ui_response",
				success: false,
				error: `No open dialog with id "${response.id}" (unknown, or already answered or closed)`,
			});
			return;
		}
		this.answeredBy.set(response.id, name);
		this.server.handleUiResponse(response);
	}

	/** Sends a client the approval requests and dialogs still open (after a plain attach or a resync). */
	sendPending(client: Attached): void {
		for (const frame of this.pending.values()) client.sendFrame(frame);
	}

	/** `tool_approval_resolved` names the token that answered, when a client did. */
	private annotate(record: Record<string, unknown>): Record<string, unknown> {
		if (record.type !== "tool_approval_resolved" || typeof record.id !== "string") return record;
		const name = this.answeredBy.get(record.id);
		this.answeredBy.delete(record.id);
		return name === undefined ? record : { ...record, client: name };
	}

	private track(record: unknown, frame: Buffer): void {
		if (!isRecord(record) || typeof record.id !== "string") return;
		const dialog = record.type === "extension_ui_request" && DIALOGS.has(String(record.method));
		if (record.type === "tool_approval_request" || dialog) this.pending.set(record.id, frame);
		else if (record.type === "tool_approval_resolved") this.pending.delete(record.id);
		if (record.type === "tool_approval_request" || record.type === "tool_approval_resolved") this.approvalsChanged();
	}

	/** A dialog closed (answered, timed out, cancelled): every client is told, with who answered. */
	private dialogClosed(id: string): void {
		if (!this.pending.delete(id)) return;
		const by = this.answeredBy.get(id);
		this.answeredBy.delete(id);
		void this.broadcast.write(
			by === undefined ? { type: "extension_ui_resolved", id } : { type: "extension_ui_resolved", id, by },
		);
	}

	/** Ends the session; with `keepRun`, a run waiting for approvals stays resumable (AgentSession.suspend). */
	async dispose(keepRun = false): Promise<void> {
		this.server.detach();
		this.flushEvents();
		this.clients.clear();
		await (keepRun ? this.session.suspend() : this.session.dispose());
		await this.server.settle();
	}
}

/** The extension UI methods that wait for an answer. */
const DIALOGS = new Set(["select", "confirm", "input", "editor"]);

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}
