import { serializeRecord } from "../framing.js";
import type { CommandOf, CommandType } from "../protocol/commands.js";
import { type ApprovalRequestHandler, ApprovalResponder } from "./approvals.js";
import { RpcCommandError, RpcTimeoutError } from "./errors.js";
import { EventFeed } from "./events.js";
import type { Link, LinkHandlers } from "./link.js";
import { NetworkLink } from "./network/link.js";
import {
	type AnyClientOptions,
	type CallOptions,
	type ConnectionEnd,
	type EndedWith,
	isNetworkOptions,
	type RpcClientOptions,
	type StartedWith,
} from "./options.js";
import { PendingRequests, timeoutFor } from "./pending.js";
import type { ProcessExit } from "./process.js";
import { ProcessLink } from "./process-link.js";
import type { IncomingRecord } from "./records.js";
import type { CommandInput, CommandResults } from "./results.js";
import type { AttachResult, ConnectionState, ReadyEvent, RpcEvent } from "./types.js";
import { type UiRequestHandler, UiResponder } from "./ui.js";

export { CLIENT_PROTOCOL_VERSION } from "./process-link.js";

/** A command's fields without `id` and `type`. */
export type Fields<K extends CommandType> = Omit<CommandOf<K>, "id" | "type">;

type AnyLink = Link<ReadyEvent, ProcessExit> | Link<AttachResult, ConnectionEnd>;

/**
 * The connection under RpcClient: the link (a spawned process, or a WebSocket to `atomic serve`),
 * request correlation and timeouts, the event feeds and the extension UI answers. RpcCommands
 * adds one method per command, RpcClient the waits. `Url` is the type of the options' `url`:
 * `string` for a client of `atomic serve`, `undefined` (the default) for a client of a process;
 * it decides what `start()` and `close()` resolve with.
 */
export class RpcConnection<Url extends string | undefined = undefined> {
	protected readonly pending = new PendingRequests(
		(command, timeoutMs) => new RpcTimeoutError(command, timeoutMs, this.stderrTail),
	);
	/** Public events. */
	protected readonly feed = new EventFeed<RpcEvent>((error) => this.report(error));
	/** Responses and events, in order, for internal waits. */
	protected readonly records = new EventFeed<IncomingRecord>((error) => this.report(error));
	/** The options as given (a network client's have a `url`). */
	protected readonly settings: AnyClientOptions;
	private readonly ui = new UiResponder(
		(record) => this.link?.post(serializeRecord(record)),
		(error) => this.report(error),
		() => !this.isNetwork,
	);
	private readonly approvals = new ApprovalResponder(
		(requestId, answer) => this.call("tool_approval_response", { requestId, ...answer }),
		(error) => this.report(error),
	);
	private readonly connectionListeners = new EventFeed<{ state: ConnectionState; reason?: Error }>((error) =>
		this.report(error),
	);
	private link: AnyLink | undefined;
	private network: NetworkLink | undefined;
	private endError: Error | undefined;
	private closeRequested = false;
	private readyEvent: ReadyEvent | undefined;
	private state: ConnectionState | undefined;
	private resolveExited: (end: ProcessExit | ConnectionEnd) => void = () => undefined;
	/** Resolves once the process has ended (or failed to start), or the network client has ended. Never rejects. */
	readonly exited: Promise<EndedWith<Url>>;

	/** A client of `atomic serve` (NetworkClientOptions: with a url), or of a process (RpcClientOptions). */
	constructor(options: AnyClientOptions & { url?: Url });
	/** A client of a process it spawns. */
	constructor(options?: RpcClientOptions);
	constructor(options?: AnyClientOptions) {
		this.settings = options ?? {};
		// What a link ends with matches the options that chose it (see EndedWith).
		this.exited = new Promise<ProcessExit | ConnectionEnd>((resolve) => {
			this.resolveExited = resolve;
		}) as Promise<EndedWith<Url>>;
	}

	/** The child's pid once spawned (a process client only). */
	get pid(): number | undefined {
		return this.link?.pid;
	}

	/** The `ready` event, once received (a network client gets one from the server on each connection). */
	get ready(): ReadyEvent | undefined {
		return this.readyEvent ?? this.link?.ready;
	}

	/** The last characters the child wrote to stderr (empty for a network client). */
	get stderrTail(): string {
		return this.link?.stderrTail ?? "";
	}

	/** The session a network client is attached to (undefined before start(), after detach, and for a process). */
	get sessionId(): string | undefined {
		return this.network?.sessionId;
	}

	/** The `seq` of the last event a network client delivered (undefined for a process). */
	get lastSeq(): number | undefined {
		return this.network?.lastSeq;
	}

	/** The link's state: undefined before start(). */
	get connectionState(): ConnectionState | undefined {
		return this.state;
	}

	/** Why the client ended (exit, crash, failed spawn, refused token, close()), once it has. */
	protected get failure(): Error | undefined {
		return this.endError;
	}

	/** Whether the process announced this command type in `ready.capabilities`. */
	supports(command: string): boolean {
		return this.ready?.capabilities.includes(command) ?? false;
	}

	/**
	 * A process client spawns the process and resolves with its `ready` event; it rejects with
	 * RpcProcessError when it cannot start or exits first, RpcTimeoutError after `startTimeoutMs`
	 * (the child is killed). A network client connects and attaches (to `sessionId`, else to a new
	 * session) and resolves with the attachment; it rejects with RpcConnectionError when it cannot
	 * connect or attach (the token refused: HTTP 401), RpcTimeoutError after `startTimeoutMs`.
	 */
	async start(): Promise<StartedWith<Url>> {
		if (this.link || this.closeRequested)
			throw new Error("RpcClient.start() can be called only once, and not after close()");
		const handlers = this.linkHandlers();
		const settings = this.settings;
		let started: Promise<ReadyEvent | AttachResult>;
		if (isNetworkOptions(settings)) {
			const link = new NetworkLink(settings, handlers);
			this.link = link;
			this.network = link;
			started = link.start();
		} else {
			const link = new ProcessLink(settings, handlers);
			this.link = link;
			started = link.start();
		}
		this.link.ended.then((end: ProcessExit | ConnectionEnd) => this.resolveExited(end));
		// What a link starts with matches the options that chose it (see StartedWith).
		return (await started) as StartedWith<Url>;
	}

	/**
	 * A process client closes stdin (the process finishes what it is doing and exits), waits for
	 * the exit, then sends SIGTERM and finally SIGKILL when it takes too long. A network client
	 * closes its WebSocket (code 1000) and stops reconnecting. Requests still pending reject
	 * (RpcProcessError; RpcConnectionError). Safe to call more than once.
	 */
	async close(): Promise<EndedWith<Url>> {
		this.closeRequested = true;
		const link = this.link;
		const end: ProcessExit | ConnectionEnd = link
			? await link.close()
			: isNetworkOptions(this.settings)
				? { code: null, reason: "" }
				: { code: null, signal: null };
		return end as EndedWith<Url>;
	}

	/** Listens to every event (a typed union; unknown new types are delivered too). Returns the removal. */
	onEvent(listener: (event: RpcEvent) => void): () => void {
		return this.feed.on(listener);
	}

	/**
	 * Listens to the link's state: `connecting` (start), `open`, `reconnecting` (a network client
	 * whose connection dropped; `reason` says why), `closed` (`reason`: why, unless close()).
	 * Returns the removal.
	 */
	onConnectionChange(listener: (state: ConnectionState, reason?: Error) => void): () => void {
		return this.connectionListeners.on((change) => listener(change.state, change.reason));
	}

	/**
	 * The events from now on as an async iterable. It ends when the client ends (the process
	 * exits; the network client is closed); leaving the loop (`break`) unsubscribes.
	 */
	events(): AsyncIterableIterator<RpcEvent> {
		return this.feed.iterate();
	}

	/** Sets the extension UI handler (see UiRequestHandler); returns its removal. */
	onUiRequest(handler: UiRequestHandler): () => void {
		return this.ui.setHandler(handler);
	}

	/**
	 * Sets the tool approval handler (see ApprovalRequestHandler); returns its removal. Without
	 * one, requests stay open until answered with respondToApproval or until they time out.
	 */
	onApprovalRequest(handler: ApprovalRequestHandler): () => void {
		return this.approvals.setHandler(handler);
	}

	/** Sends a known command: typed fields, typed `data`. */
	request<K extends CommandType>(command: CommandInput<K>, options?: CallOptions): Promise<CommandResults[K]>;
	/** Sends a command this client does not know yet; resolves with its raw `data`. */
	request<T extends string>(
		command: { type: T extends CommandType ? never : T } & Record<string, unknown>,
		options?: CallOptions,
	): Promise<unknown>;
	request(command: { type: string } & Record<string, unknown>, options?: CallOptions): Promise<unknown> {
		return this.send(command, options);
	}

	/** Sends a known command and resolves with its typed `data`. */
	protected call<K extends CommandType>(
		type: K,
		fields: Fields<K>,
		options?: CallOptions,
		id?: string,
	): Promise<CommandResults[K]> {
		return this.send({ ...fields, type }, options, id) as Promise<CommandResults[K]>;
	}

	/** Whether this client speaks to `atomic serve`. */
	protected get isNetwork(): boolean {
		return isNetworkOptions(this.settings);
	}

	/**
	 * Sends one command and resolves with its `data`; rejects with RpcCommandError on
	 * `success: false`. A network client that is reconnecting sends it once attached again.
	 */
	protected async send(
		command: { type: string } & Record<string, unknown>,
		options: CallOptions = {},
		id: string = this.pending.nextId(),
	): Promise<unknown> {
		const link = this.link;
		if (!link) throw new Error(`RpcClient is not started: call start() before ${command.type}`);
		if (this.endError) throw this.endError;
		const text = serializeRecord({ ...command, id });
		const response = this.pending.add(
			id,
			command.type,
			timeoutFor(command.type, this.settings.timeouts ?? {}, options.timeoutMs),
		);
		link.send({ id, type: command.type, text });
		const answer = await response;
		if (!answer.success) throw new RpcCommandError(answer.command, answer.error);
		return answer.data;
	}

	private linkHandlers(): LinkHandlers {
		return {
			onRecord: (record) => this.onRecord(record),
			onRequestFailed: (id, error) => this.pending.fail(id, error),
			isPending: (id) => this.pending.has(id),
			onEnd: (error) => this.onEnd(error),
			onStateChange: (state, reason) => {
				this.state = state;
				this.connectionListeners.emit(reason ? { state, reason } : { state });
			},
			onError: (error) => this.report(error),
		};
	}

	private onRecord(record: IncomingRecord): void {
		if (record.type === "response") {
			// Unknown ids are late answers to requests that timed out: dropped. No id: a parse error,
			// or (atomic serve) a dialog answer that came after another client's.
			const lateDialogAnswer = this.isNetwork && record.command === "extension_ui_response";
			if (!this.pending.settle(record) && record.id === undefined && !lateDialogAnswer) {
				const from = this.isNetwork ? "the server" : "the RPC process";
				this.report(new Error(`Uncorrelated response from ${from}: ${JSON.stringify(record).slice(0, 200)}`));
			}
			this.records.emit(record);
			return;
		}
		if (record.type === "ready") this.readyEvent = record;
		this.records.emit(record);
		this.feed.emit(record);
		if (record.type === "extension_ui_request") this.ui.handle(record);
		else if (record.type === "tool_approval_request") this.approvals.handle(record);
		else if (record.type === "tool_approval_resolved") this.approvals.resolved(record.id);
	}

	private onEnd(error: Error): void {
		this.endError = error;
		this.pending.failAll(error);
		this.records.end();
		this.feed.end();
		this.connectionListeners.end();
	}

	protected report(error: unknown): void {
		const normalized = error instanceof Error ? error : new Error(String(error));
		if (this.settings.onError) this.settings.onError(normalized);
		else process.emitWarning(normalized);
	}
}
