import { timerDelay } from "../../llm/timer-limit.js";
import type { RecordText } from "../framing.js";
import { defaultCliPath } from "./cli-path.js";
import { RpcProcessError, RpcTimeoutError } from "./errors.js";
import type { Link, LinkHandlers, OutgoingRequest } from "./link.js";
import type { RpcClientOptions } from "./options.js";
import { AgentProcess, type ProcessExit, type ProcessSpec, within } from "./process.js";
import { parseRecord } from "./records.js";
import type { ReadyEvent } from "./types.js";

/** The protocol version this client speaks (`ready.protocolVersion`). */
export const CLIENT_PROTOCOL_VERSION = 1;

/** After a failed write, how long to wait for the exit that usually follows. */
const WRITE_FAILURE_EXIT_WAIT_MS = 500;

/**
 * The link to a spawned `atomic --mode rpc`: its stdin and stdout, its `ready` event, and an
 * exit that fails every pending request with RpcProcessError (code, signal, stderr).
 */
export class ProcessLink implements Link<ReadyEvent, ProcessExit> {
	readonly ended: Promise<ProcessExit>;
	private child: AgentProcess | undefined;
	private processError: RpcProcessError | undefined;
	private closing: Promise<ProcessExit> | undefined;
	private closeRequested = false;
	private readyEvent: ReadyEvent | undefined;
	private readyWaiter: { resolve(ready: ReadyEvent): void; reject(error: Error): void } | undefined;
	private resolveEnded: (exit: ProcessExit) => void = () => undefined;

	constructor(
		private readonly options: RpcClientOptions,
		private readonly handlers: LinkHandlers,
	) {
		this.ended = new Promise((resolve) => {
			this.resolveEnded = resolve;
		});
	}

	get pid(): number | undefined {
		return this.child?.pid;
	}

	get ready(): ReadyEvent | undefined {
		return this.readyEvent;
	}

	get stderrTail(): string {
		return this.child?.stderrTail ?? "";
	}

	/**
	 * Spawns the process and resolves with its `ready` event. Rejects with RpcProcessError when
	 * it cannot start or exits first, RpcTimeoutError after `startTimeoutMs` (the child is killed).
	 */
	async start(): Promise<ReadyEvent> {
		const spec = this.spawnSpec();
		const ready = new Promise<ReadyEvent>((resolve, reject) => {
			this.readyWaiter = { resolve, reject };
		});
		this.handlers.onStateChange("connecting");
		const onStderr = this.options.onStderr;
		let child: AgentProcess;
		try {
			child = new AgentProcess(
				spec,
				{
					onRecord: (record) => this.onRecord(record),
					onExit: (exit) => this.onExit(exit, spec),
					onStderr: onStderr ? (text) => this.callSafely(onStderr, text) : undefined,
					onError: (error) => this.handlers.onError(error),
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
			this.handlers.onStateChange("open");
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
	 * sends SIGTERM and finally SIGKILL when it takes too long.
	 */
	close(): Promise<ProcessExit> {
		this.closeRequested = true;
		const child = this.child;
		if (!child) return Promise.resolve({ code: null, signal: null });
		this.closing ??= child.close(this.options.closeTimeoutMs ?? 10_000, this.options.killGraceMs ?? 2_000);
		return this.closing;
	}

	send(request: OutgoingRequest): void {
		const child = this.child;
		if (!child) {
			this.handlers.onRequestFailed(request.id, this.processError ?? new Error("The RPC process is not running"));
			return;
		}
		child.write(request.text).catch(async (error: unknown) => {
			// Usually the process is dying: its exit (code, signal, stderr) says more than EPIPE.
			await within(child.exited, WRITE_FAILURE_EXIT_WAIT_MS);
			this.handlers.onRequestFailed(request.id, this.writeFailure(request.type, error));
		});
	}

	post(text: string): void {
		// A dialog of a process that is gone needs no answer.
		if (!this.child || this.processError) return;
		this.child.write(text).catch((error: unknown) => {
			if (!this.processError) this.handlers.onError(this.writeFailure("extension_ui_response", error));
		});
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
			this.handlers.onError(parsed.error);
			return;
		}
		const record = parsed.record;
		if (record.type === "ready") {
			this.readyEvent = record;
			this.readyWaiter?.resolve(record);
		}
		this.handlers.onRecord(record);
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
		this.handlers.onStateChange("closed", error);
		this.handlers.onEnd(error);
		this.resolveEnded(exit);
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

	private callSafely<T>(callback: (value: T) => void, value: T): void {
		try {
			callback(value);
		} catch (error) {
			this.handlers.onError(error instanceof Error ? error : new Error(String(error)));
		}
	}
}
