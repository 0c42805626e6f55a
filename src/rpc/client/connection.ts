import { timerDelay } from "../../llm/timer-limit.js";
import { type RecordText, serializeRecord } from "../framing.js";
import type { CommandOf, CommandType } from "../protocol/commands.js";
import { type ApprovalRequestHandler, ApprovalResponder } from "./approvals.js";
import { defaultCliPath } from "./cli-path.js";
import { RpcCommandError, RpcProcessError, RpcTimeoutError } from "./errors.js";
import { EventFeed } from "./events.js";
import type { CallOptions, RpcClientOptions } from "./options.js";
import { PendingRequests, timeoutFor } from "./pending.js";
import { AgentProcess, type ProcessExit, type ProcessSpec, within } from "./process.js";
import { type IncomingRecord, parseRecord } from "./records.js";
import type { CommandInput, CommandResults } from "./results.js";
import type { ReadyEvent, RpcEvent } from "./types.js";
import { type UiRequestHandler, UiResponder } from "./ui.js";

/** The protocol version this client speaks (`ready.protocolVersion`). */
export const CLIENT_PROTOCOL_VERSION = 1;

/** After a failed write, how long to wait for the exit that usually follows. */
const WRITE_FAILURE_EXIT_WAIT_MS = 500;

/** A command's fields without `id` and `type`. */
export type Fields<K extends CommandType> = Omit<CommandOf<K>, "id" | "type">;

/**
 * The transport under RpcClient: the process, request correlation and timeouts, the event feeds
 * and the extension UI answers. RpcCommands adds one method per command, RpcClient the waits.
 */
export class RpcConnection {
	protected readonly pending = new PendingRequests(
		(command, timeoutMs) => new RpcTimeoutError(command, timeoutMs, this.stderrTail),
	);
	/** Public events. */
	protected readonly feed = new EventFeed<RpcEvent>((error) => this.report(error));
	/** Responses and events, in order, for internal waits. */
	protected readonly records = new EventFeed<IncomingRecord>((error) => this.report(error));
	private readonly ui = new UiResponder(
		(record) => this.writeUiAnswer(record),
		(error) => this.report(error),
	);
	private readonly approvals = new ApprovalResponder(
		(requestId, answer) => this.call("tool_approval_response", { requestId, ...answer }),
		(error) => this.report(error),
	);
	private child: AgentProcess | undefined;
	private processError: RpcProcessError | undefined;
	private closing: Promise<ProcessExit> | undefined;
	private closeRequested = false;
	private readyEvent: ReadyEvent | undefined;
	private readyWaiter: { resolve(ready: ReadyEvent): void; reject(error: Error): void } | undefined;
	private resolveExited: (exit: ProcessExit) => void = () => undefined;
	/** Resolves once the process has ended (or failed to start). Never rejects. */
	readonly exited: Promise<ProcessExit>;

	constructor(protected readonly options: RpcClientOptions = {}) {
		this.exited = new Promise((resolve) => {
			this.resolveExited = resolve;
		});
	}

	/** The child's pid once spawned. */
	get pid(): number | undefined {
		return this.child?.pid;
	}

	/** The `ready` event, once received. */
	get ready(): ReadyEvent | undefined {
		return this.readyEvent;
	}

	/** The last characters the child wrote to stderr. */
	get stderrTail(): string {
		return this.child?.stderrTail ?? "";
	}

	/** Why the process is gone (exit, crash, failed spawn), once it is. */
	protected get failure(): RpcProcessError | undefined {
		return this.processError;
	}

	/** Whether the process announced this command type in `ready.capabilities`. */
	supports(command: string): boolean {
		return this.readyEvent?.capabilities.includes(command) ?? false;
	}

	/**
	 * Spawns the process and resolves with its `ready` event. Rejects with RpcProcessError when
	 * it cannot start or exits first, RpcTimeoutError after `startTimeoutMs` (the child is killed).
	 */
	async start(): Promise<ReadyEvent> {
		if (this.child || this.closeRequested)
			throw new Error("RpcClient.start() can be called only once, and not after close()");
		const spec = this.spawnSpec();
		const ready = new Promise<ReadyEvent>((resolve, reject) => {
			this.readyWaiter = { resolve, reject };
		});
		let child: AgentProcess;
		try {
			child = new AgentProcess(
				spec,
				{
					onRecord: (record) => this.onRecord(record),
					onExit: (exit) => this.onExit(exit, spec),
					onStderr: this.options.onStderr ? (text) => this.callSafely(this.options.onStderr, text) : undefined,
					onError: (error) => this.report(error),
				},
				this.options.stderrTailChars ?? 8192,
			);
		} catch (error) {
			// spawn() throws synchronously on invalid arguments (asynchronous failures come as an exit).
			this.closeRequested = true;
			this.onExit({ code: null, signal: null, error: error instanceof Error ? error : new Error(String(error)) }, spec);
			throw this.processError;
		}
		this.child = child;
		const timeoutMs = this.options.startTimeoutMs ?? 30_000;
		const timer = setTimeout(() => {
			this.readyWaiter?.reject(new RpcTimeoutError("ready", timeoutMs, this.stderrTail, "the ready event"));
		}, timerDelay(timeoutMs));
		try {
			const event = await ready;
			if (event.protocolVersion !== CLIENT_PROTOCOL_VERSION) {
				throw new Error(
					`The RPC process speaks protocol version ${event.protocolVersion}; this client speaks ${CLIENT_PROTOCOL_VERSION}`,
				);
			}
			return event;
		} catch (error) {
			child.kill("SIGKILL");
			throw error;
		} finally {
			clearTimeout(timer);
			this.readyWaiter = undefined;
		}
	}

	/**
	 * Closes stdin (the process finishes what it is doing and exits), waits for the exit, then
	 * sends SIGTERM and finally SIGKILL when it takes too long. Requests still pending reject with
	 * RpcProcessError. Safe to call more than once; resolves with how the process ended.
	 */
	close(): Promise<ProcessExit> {
		this.closeRequested = true;
		const child = this.child;
		if (!child) return Promise.resolve({ code: null, signal: null });
		this.closing ??= child.close(this.options.closeTimeoutMs ?? 10_000, this.options.killGraceMs ?? 2_000);
		return this.closing;
	}

	/** Listens to every event (a typed union; unknown new types are delivered too). Returns the removal. */
	onEvent(listener: (event: RpcEvent) => void): () => void {
		return this.feed.on(listener);
	}

	/**
	 * The events from now on as an async iterable. It ends when the process exits; leaving the
	 * loop (`break`) unsubscribes.
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

	/** Sends one command and resolves with its `data`; rejects with RpcCommandError on `success: false`. */
	protected async send(
		command: { type: string } & Record<string, unknown>,
		options: CallOptions = {},
		id: string = this.pending.nextId(),
	): Promise<unknown> {
		const child = this.child;
		if (!child) throw new Error(`RpcClient is not started: call start() before ${command.type}`);
		if (this.processError) throw this.processError;
		const line = serializeRecord({ ...command, id });
		const response = this.pending.add(
			id,
			command.type,
			timeoutFor(command.type, this.options.timeouts ?? {}, options.timeoutMs),
		);
		child.write(line).catch(async (error: unknown) => {
			// Usually the process is dying: its exit (code, signal, stderr) says more than EPIPE.
			await within(child.exited, WRITE_FAILURE_EXIT_WAIT_MS);
			this.pending.fail(id, this.writeFailure(command.type, error));
		});
		const answer = await response;
		if (!answer.success) throw new RpcCommandError(answer.command, answer.error);
		return answer.data;
	}

	private spawnSpec(): ProcessSpec {
		const command = this.options.command ?? process.execPath;
		const prefix = this.options.commandArgs ?? [this.options.cliPath ?? defaultCliPath()];
		return {
			command,
			args: [...prefix, "--mode", "rpc", ...(this.options.args ?? [])],
			cwd: this.options.cwd,
			env: this.options.env ?? process.env,
		};
	}

	private onRecord(text: RecordText): void {
		const parsed = parseRecord(text);
		if (!parsed.ok) {
			this.report(parsed.error);
			return;
		}
		const record = parsed.record;
		if (record.type === "response") {
			// Unknown ids are late answers to requests that timed out: dropped. No id: a parse error.
			if (!this.pending.settle(record) && record.id === undefined) {
				this.report(new Error(`Uncorrelated response from the RPC process: ${text.ok ? text.text.slice(0, 200) : ""}`));
			}
			this.records.emit(record);
			return;
		}
		if (record.type === "ready") {
			this.readyEvent = record;
			this.readyWaiter?.resolve(record);
		}
		this.records.emit(record);
		this.feed.emit(record);
		if (record.type === "extension_ui_request") this.ui.handle(record);
		else if (record.type === "tool_approval_request") this.approvals.handle(record);
		else if (record.type === "tool_approval_resolved") this.approvals.resolved(record.id);
	}

	private onExit(exit: ProcessExit, spec: ProcessSpec): void {
		const tail = this.stderrTail;
		const error = exit.error
			? new RpcProcessError(
					`Could not start the RPC process (${spec.command}): ${exit.error.message}`,
					null,
					null,
					tail,
					{
						cause: exit.error,
					},
				)
			: new RpcProcessError(
					`The RPC process exited (code ${exit.code}, signal ${exit.signal})${this.closeRequested ? " after close()" : ""}`,
					exit.code,
					exit.signal,
					tail,
				);
		this.processError = error;
		this.readyWaiter?.reject(error);
		this.pending.failAll(error);
		this.records.end();
		this.feed.end();
		this.resolveExited(exit);
	}

	private writeFailure(command: string, error: unknown): Error {
		if (this.processError) return this.processError;
		const exit = this.child?.exitStatus;
		const reason = error instanceof Error ? error.message : String(error);
		return new RpcProcessError(
			`Could not send ${command} to the RPC process: ${reason}`,
			exit?.code ?? null,
			exit?.signal ?? null,
			this.stderrTail,
			{ cause: error },
		);
	}

	private writeUiAnswer(record: Record<string, unknown>): void {
		// A dialog of a process that is gone needs no answer.
		if (!this.child || this.processError) return;
		this.child.write(serializeRecord(record)).catch((error: unknown) => {
			if (!this.processError) this.report(this.writeFailure("extension_ui_response", error));
		});
	}

	private callSafely<T>(callback: ((value: T) => void) | undefined, value: T): void {
		try {
			callback?.(value);
		} catch (error) {
			this.report(error);
		}
	}

	protected report(error: unknown): void {
		const normalized = error instanceof Error ? error : new Error(String(error));
		if (this.options.onError) this.options.onError(normalized);
		else process.emitWarning(normalized);
	}
}
