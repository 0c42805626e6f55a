import { existsSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { timerDelay } from "../llm/timer-limit.js";
import { childProcessModule } from "../platform/lazy-builtins.js";
import { newShellTag, taggedEnvironment } from "./process-tree.js";
import { scanOutputBytes } from "./shell-bytes.js";
import { outputLimits, RollingTail, ShellTextDecoder } from "./shell-output.js";
import { registerShell, shellExited, stopShellProcesses } from "./shell-processes.js";
import { MAX_SPILL_BYTES, SpillFile } from "./shell-spill.js";
import type { TruncationResult } from "./truncate.js";

export interface ShellRunOptions {
	command: string;
	cwd: string;
	/** Default: the current process's environment. */
	env?: NodeJS.ProcessEnv;
	signal?: AbortSignal;
	/** Ignored unless positive; values above MAX_TIMER_MS (about 24.8 days) count as that. */
	timeoutMs?: number;
	/** Default: /bin/bash when it exists, else `sh` from the PATH. */
	shellPath?: string;
	/**
	 * Decoded, sanitised deltas in arrival order, never truncated. Must not throw. A promise returned
	 * pauses reading the command's output until it settles: the pipes fill and the command waits,
	 * so a slow consumer slows the command down instead of buffering its output (at most about a
	 * pipe's worth more is read: Node reads a child's pipes once more when it exits, and a stopped
	 * command's output is read at once).
	 */
	onData?(channel: "stdout" | "stderr", text: string): void | Promise<void>;
	/** Directory for the full-output file (default os.tmpdir()); created 0700 if missing. */
	spillDir?: string;
	/** Tail limits for `output`; default 2000 lines / 51200 bytes. */
	maxLines?: number;
	maxBytes?: number;
	/** Size cap of the full-output file; default 64 MiB. */
	maxSpillBytes?: number;
	/**
	 * The program that runs `<shell> -c <command>` instead of the shell itself (the sandbox's
	 * bwrap). It is started the same way: tagged, in a process group of its own, stopped as a whole.
	 */
	launcher?: ShellLauncher;
}

/** Turns `<shell> -c <command>` into the program and arguments that run it. */
export type ShellLauncher = (shell: string, command: string) => { file: string; args: string[] };

export interface ShellRunResult {
	/** stdout and stderr in arrival order, sanitised, tail-truncated. */
	output: string;
	/** Absent when cancelled, timed out or killed by a signal. */
	exitCode?: number;
	/** The signal that ended the shell, when one did. */
	signal?: NodeJS.Signals;
	cancelled: boolean;
	timedOut: boolean;
	truncated: boolean;
	/** The whole sanitised output; set whenever `truncated` is (unless the file could not be written). */
	fullOutputPath?: string;
	totalLines: number;
	totalBytes: number;
	/** How `output` was cut from the whole output. */
	truncation: TruncationResult;
}

/**
 * How long the output pipes get to end once the shell has exited. Processes the command left
 * running in the background may hold them open for ever: the command is done when its shell is.
 * The time counts only while the pipes are read (not while onData's consumer is waited for).
 */
export const PIPE_GRACE_MS = 200;

let foundShell: string | undefined;

/** /bin/bash when it exists, else `sh` from the PATH: looked up once. */
function defaultShell(): string {
	foundShell ??= existsSync("/bin/bash") ? "/bin/bash" : "sh";
	return foundShell;
}

function isDirectory(path: string): boolean {
	return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

/**
 * Why a shell did not start: a missing working directory (looked at only now, so that a command
 * that starts costs no extra file-system call), else `error` itself.
 */
function startFailure(cwd: string, error: Error): Error {
	return isDirectory(cwd) ? error : new Error(`Working directory does not exist: ${cwd}`);
}

/** A shell of its own for `command`: `<shell> -c <command>`, tagged, in a process group of its own. */
function startShell(
	shell: string,
	command: string,
	cwd: string,
	env: NodeJS.ProcessEnv,
	launcher: ShellLauncher | undefined,
) {
	const tag = newShellTag();
	const { file, args } = launcher ? launcher(shell, command) : { file: shell, args: ["-c", command] };
	const child = childProcessModule().spawn(file, args, {
		cwd,
		env: taggedEnvironment(env, tag),
		stdio: ["ignore", "pipe", "pipe"],
		detached: true,
	});
	return { child, stdout: child.stdout, stderr: child.stderr, tag };
}

/**
 * Runs `command` with `<shell> -c` in its own process group, tagged (see process-tree.ts) so that
 * every process it starts can be found. Resolves once the shell has exited and both output streams
 * have ended, or PIPE_GRACE_MS of reading after the exit when background processes hold them. On abort or
 * timeout every process of the command is ended (SIGTERM, then SIGKILL). Processes it leaves in
 * the background live on; they are ended when `signal` aborts later, and when this process exits.
 * Rejects only when the working directory is missing or the shell cannot be started.
 */
export function runShell(options: ShellRunOptions): Promise<ShellRunResult> {
	const limits = outputLimits(options);
	const tail = new RollingTail(limits);
	const spillDir = options.spillDir ?? tmpdir();
	const maxSpillBytes = options.maxSpillBytes ?? MAX_SPILL_BYTES;
	let spill: SpillFile | undefined;
	let spillRefused = false;

	/**
	 * `newlines`: the LF count of the bytes read, which decoding and sanitising never change.
	 * `encoded`: the text's UTF-8 when the caller has it (the chunk read, when decoding kept it as it was).
	 */
	const collect = (
		channel: "stdout" | "stderr",
		text: string,
		newlines: number,
		encoded?: Buffer,
	): Promise<void> | undefined => {
		if (!text) return undefined;
		const bytes = encoded ? encoded.length : Buffer.byteLength(text);
		if (!spill && !spillRefused && tail.totalBytes + bytes > limits.maxBytes) {
			// Until now the tail holds everything, so the file can start from the first byte.
			spill = SpillFile.create(spillDir, maxSpillBytes);
			spillRefused = !spill;
			spill?.write(tail.text());
		}
		spill?.write(encoded ?? text, bytes);
		tail.push(text, bytes, newlines);
		const waiting = options.onData?.(channel, text);
		return waiting instanceof Promise ? waiting : undefined;
	};

	const finish = (state: {
		cancelled: boolean;
		timedOut: boolean;
		code: number | null;
		signal: NodeJS.Signals | null;
	}) => {
		const truncation = tail.truncate();
		if (truncation.truncated && !spill && !spillRefused) {
			// Truncated by lines alone: the output is small enough to still be whole in the tail.
			spill = SpillFile.create(spillDir, maxSpillBytes);
			spill?.write(tail.text());
		}
		const fullOutputPath = spill?.close();
		const stopped = state.cancelled || state.timedOut;
		const result: ShellRunResult = {
			output: truncation.content,
			cancelled: state.cancelled,
			timedOut: state.timedOut,
			truncated: truncation.truncated,
			totalLines: truncation.totalLines,
			totalBytes: truncation.totalBytes,
			truncation,
		};
		if (!stopped && state.code !== null) result.exitCode = state.code;
		if (state.signal !== null) result.signal = state.signal;
		if (fullOutputPath !== undefined && truncation.truncated) result.fullOutputPath = fullOutputPath;
		return result;
	};

	if (options.signal?.aborted) {
		if (!isDirectory(options.cwd)) {
			return Promise.reject(new Error(`Working directory does not exist: ${options.cwd}`));
		}
		return Promise.resolve(finish({ cancelled: true, timedOut: false, code: null, signal: null }));
	}
	return new Promise<ShellRunResult>((resolve, reject) => {
		const shell = options.shellPath ?? defaultShell();
		let started: ReturnType<typeof startShell>;
		try {
			started = startShell(shell, options.command, options.cwd, options.env ?? process.env, options.launcher);
		} catch (error) {
			// Node throws for some failures of the child's set-up (a working directory that is a file).
			reject(error instanceof Error ? startFailure(options.cwd, error) : error);
			return;
		}
		const { child, stdout, stderr, tag } = started;
		const groupId = child.pid;
		// Without a pid the spawn failed, and "error" follows.
		const running = groupId !== undefined;
		let cancelled = false;
		let timedOut = false;
		let stopping = false;
		let done = false;
		let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
		let openStreams = 2;
		let timeoutTimer: NodeJS.Timeout | undefined;
		let graceTimer: NodeJS.Timeout | undefined;
		if (groupId !== undefined) registerShell(tag, groupId);
		const pipes = [stdout, stderr];
		/** How many onData promises are pending: reading is paused while any is. */
		let waits = 0;
		/** The grace the pipes have left: it runs only while they are read. */
		let graceLeft = PIPE_GRACE_MS;
		let graceStartedAt = 0;

		const startGrace = (): void => {
			if (graceTimer !== undefined || !exit || openStreams === 0) return;
			graceStartedAt = Date.now();
			graceTimer = setTimeout(complete, graceLeft);
		};
		const pauseGrace = (): void => {
			if (graceTimer === undefined) return;
			clearTimeout(graceTimer);
			graceTimer = undefined;
			graceLeft = Math.max(0, graceLeft - (Date.now() - graceStartedAt));
		};
		const readAgain = (): void => {
			for (const pipe of pipes) pipe.resume();
			startGrace();
		};
		const release = (): void => {
			waits--;
			if (waits === 0 && !done && !stopping) readAgain();
		};
		const hold = (waiting: Promise<void>): void => {
			// Once the command is stopped, what is left in its pipes is read at once (a pipe's worth).
			if (stopping) return;
			waits++;
			void waiting.then(release, release);
			if (waits > 1) return;
			for (const pipe of pipes) pipe.pause();
			pauseGrace();
		};

		const stop = (): void => {
			if (stopping) return;
			stopping = true;
			if (waits > 0 && !done) readAgain();
			stopShellProcesses(tag);
		};
		const onAbort = (): void => {
			if (timedOut) return;
			cancelled = true;
			stop();
		};
		/** Ends the command: once the shell exited and its pipes ended or had their grace. */
		const complete = (): void => {
			if (done || !exit) return;
			done = true;
			options.signal?.removeEventListener("abort", onAbort);
			clearTimeout(timeoutTimer);
			clearTimeout(graceTimer);
			for (const stream of pipes) releaseStream(stream);
			resolve(finish({ cancelled, timedOut, code: exit.code, signal: exit.signal }));
			// What the command left running in the background ends with the run that started it.
			if (!stopping) options.signal?.addEventListener("abort", () => stopShellProcesses(tag), { once: true });
		};

		options.signal?.addEventListener("abort", onAbort, { once: true });
		const timeoutMs = options.timeoutMs;
		if (timeoutMs !== undefined && timeoutMs > 0) {
			timeoutTimer = setTimeout(() => {
				if (cancelled) return;
				timedOut = true;
				stop();
			}, timerDelay(timeoutMs));
		}

		for (const channel of ["stdout", "stderr"] as const) {
			const decoder = new ShellTextDecoder();
			const stream = channel === "stdout" ? stdout : stderr;
			stream.on("data", (chunk: Buffer) => {
				if (done) return;
				const scan = scanOutputBytes(chunk);
				const text = decoder.write(chunk, scan.asciiControls);
				const waiting = collect(channel, text, scan.newlines, decoder.verbatim ? chunk : undefined);
				if (waiting) hold(waiting);
			});
			stream.once("end", () => {
				// What the decoder held back (a cut-off escape sequence or character) holds no LF.
				if (!done) void collect(channel, decoder.end(), 0);
				openStreams--;
				if (openStreams === 0) complete();
			});
		}

		child.once("error", (error) => {
			if (running) return;
			options.signal?.removeEventListener("abort", onAbort);
			clearTimeout(timeoutTimer);
			reject(
				startFailure(options.cwd, new Error(`Could not start the shell ${shell}: ${error.message}`, { cause: error })),
			);
		});
		child.once("exit", (code, signal) => {
			if (!running) return;
			exit = { code, signal };
			shellExited(tag);
			if (openStreams === 0) complete();
			// While the output waits for its consumer, what is still in the pipes is not abandoned.
			else if (waits === 0 || stopping) startGrace();
		});
	});
}

/**
 * Stops listening to an output pipe that background processes may still hold: what they write
 * is read and dropped (so they never get SIGPIPE), and the pipe no longer keeps this process alive.
 */
export function releaseStream(stream: NodeJS.ReadableStream & { unref?: () => void; readableEnded?: boolean }): void {
	if (stream.readableEnded) return;
	stream.removeAllListeners("data");
	stream.on("data", discard);
	stream.unref?.();
}

function discard(): void {
	// Output of background processes after their command returned goes nowhere.
}
