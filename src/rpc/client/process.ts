import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { timerDelay } from "../../llm/timer-limit.js";
import { LineSplitter, type RecordText } from "../framing.js";

export interface ProcessSpec {
	command: string;
	args: string[];
	cwd?: string;
	env?: NodeJS.ProcessEnv;
}

/** How the process ended; `error` is set when it could not be started at all. */
export interface ProcessExit {
	code: number | null;
	signal: NodeJS.Signals | null;
	error?: Error;
}

export interface ProcessHandlers {
	/** Each stdout record, in order. */
	onRecord(record: RecordText): void;
	/** Called once, after the last record. */
	onExit(exit: ProcessExit): void;
	onStderr?(text: string): void;
	/** Stream errors that do not end the process (they are otherwise handled here). */
	onError(error: Error): void;
}

/**
 * After `exit`, records may still sit in the stdout pipe; they are read until stdout ends, but
 * no longer than this (a grandchild holding the pipe open must not delay the exit report).
 */
const STDOUT_DRAIN_MS = 200;

/**
 * One RPC child process: LF-only framing of its stdout, a bounded tail of its stderr, writes that
 * fail as rejected promises (never as an unhandled EPIPE), and exactly one exit report, whether
 * it exited, was killed or never started.
 */
export class AgentProcess {
	readonly exited: Promise<ProcessExit>;
	private readonly child: ChildProcessWithoutNullStreams;
	private stderr = "";
	private exit: ProcessExit | undefined;
	private stdinError: Error | undefined;
	private resolveExited: (exit: ProcessExit) => void = () => undefined;

	constructor(
		spec: ProcessSpec,
		private readonly handlers: ProcessHandlers,
		private readonly stderrTailChars: number,
	) {
		this.exited = new Promise((resolve) => {
			this.resolveExited = resolve;
		});
		this.child = spawn(spec.command, spec.args, { cwd: spec.cwd, env: spec.env, stdio: ["pipe", "pipe", "pipe"] });
		const splitter = new LineSplitter((record) => handlers.onRecord(record));
		let stdoutEnded = false;
		let exitSeen: ProcessExit | undefined;
		this.child.stdout.on("data", (chunk: Buffer) => splitter.push(chunk));
		this.child.stdout.on("end", () => {
			stdoutEnded = true;
			splitter.end();
			if (exitSeen) this.finish(exitSeen);
		});
		this.child.stderr.setEncoding("utf8");
		this.child.stderr.on("data", (text: string) => this.onStderr(text));
		this.child.stdin.on("error", (error) => {
			// Usually EPIPE: the process is gone or closed its stdin. Writes report it themselves.
			this.stdinError = error;
		});
		this.child.stdout.on("error", (error) => handlers.onError(error));
		this.child.stderr.on("error", (error) => handlers.onError(error));
		this.child.on("error", (error) => {
			// Without a pid the spawn failed; Node then emits `close` but never `exit`.
			if (this.child.pid === undefined) this.finish({ code: null, signal: null, error });
			else handlers.onError(error);
		});
		this.child.on("exit", (code, signal) => {
			exitSeen = { code, signal };
			if (stdoutEnded) this.finish(exitSeen);
			else setTimeout(() => this.finish({ code, signal }), STDOUT_DRAIN_MS);
		});
		this.child.on("close", (code: number | null, signal: NodeJS.Signals | null) => {
			this.finish(exitSeen ?? { code, signal });
		});
	}

	get pid(): number | undefined {
		return this.child.pid;
	}

	get exitStatus(): ProcessExit | undefined {
		return this.exit;
	}

	/** The last characters the process wrote to stderr. */
	get stderrTail(): string {
		return this.stderr;
	}

	/** Writes to stdin; rejects (instead of throwing or emitting) when the process cannot take it. */
	write(text: string): Promise<void> {
		const stdin = this.child.stdin;
		if (this.exit || this.stdinError || !stdin.writable) {
			return Promise.reject(this.stdinError ?? new Error("the process's stdin is closed"));
		}
		return new Promise((resolve, reject) => {
			stdin.write(text, (error) => {
				if (error) reject(error);
				else resolve();
			});
		});
	}

	/** Closes stdin: the RPC process finishes its work and exits. */
	endInput(): void {
		if (!this.child.stdin.writableEnded) this.child.stdin.end();
	}

	/**
	 * Closes stdin and waits for the exit; sends SIGTERM after `closeTimeoutMs`, then SIGKILL
	 * after `killGraceMs` more.
	 */
	async close(closeTimeoutMs: number, killGraceMs: number): Promise<ProcessExit> {
		this.endInput();
		const exit = await within(this.exited, closeTimeoutMs);
		if (exit) return exit;
		this.kill("SIGTERM");
		const terminated = await within(this.exited, killGraceMs);
		if (terminated) return terminated;
		this.kill("SIGKILL");
		return this.exited;
	}

	kill(signal: NodeJS.Signals): void {
		if (!this.exit && this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
	}

	private onStderr(text: string): void {
		this.stderr = (this.stderr + text).slice(-this.stderrTailChars);
		this.handlers.onStderr?.(text);
	}

	private finish(exit: ProcessExit): void {
		if (this.exit) return;
		this.exit = exit;
		this.handlers.onExit(exit);
		this.resolveExited(exit);
	}
}

/** Waits for `promise` at most `timeoutMs`; undefined when the time ran out. */
export async function within<T>(promise: Promise<T>, timeoutMs: number): Promise<T | undefined> {
	let timer: ReturnType<typeof setTimeout> | undefined;
	const expired = new Promise<undefined>((resolve) => {
		timer = setTimeout(() => resolve(undefined), timerDelay(timeoutMs));
	});
	try {
		return await Promise.race([promise, expired]);
	} finally {
		clearTimeout(timer);
	}
}
