import { spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { countNewlineBytes, outputLimits, RollingTail, ShellTextDecoder } from "./shell-output.js";
import { MAX_SPILL_BYTES, SpillFile } from "./shell-spill.js";
import type { TruncationResult } from "./truncate.js";

export interface ShellRunOptions {
	command: string;
	cwd: string;
	/** Default: the current process's environment. */
	env?: NodeJS.ProcessEnv;
	signal?: AbortSignal;
	/** Ignored unless positive and finite. */
	timeoutMs?: number;
	/** Default: /bin/bash when it exists, else `sh` from the PATH. */
	shellPath?: string;
	/** Decoded, sanitised deltas in arrival order, never truncated. Must not throw. */
	onData?(channel: "stdout" | "stderr", text: string): void;
	/** Directory for the full-output file (default os.tmpdir()); created 0700 if missing. */
	spillDir?: string;
	/** Tail limits for `output`; default 2000 lines / 51200 bytes. */
	maxLines?: number;
	maxBytes?: number;
	/** Size cap of the full-output file; default 64 MiB. */
	maxSpillBytes?: number;
}

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

/** How long a process group gets between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 1000;

/** Process-group ids of the shells still running (each shell leads its own group). */
const liveGroups = new Set<number>();

/** Sends a signal to a whole process group; false when the group is gone. */
function signalGroup(groupId: number, signal: NodeJS.Signals): boolean {
	try {
		process.kill(-groupId, signal);
		return true;
	} catch (error) {
		// ESRCH: every member already exited. Anything else (EPERM) means it is no longer ours to kill.
		if (error instanceof Error && "code" in error && error.code !== "ESRCH") {
			process.emitWarning(`Could not send ${signal} to process group ${groupId}: ${error.message}`);
		}
		return false;
	}
}

/** Kills every running shell's process group at once (for process shutdown). */
export function killAllShells(): void {
	for (const groupId of liveGroups) signalGroup(groupId, "SIGKILL");
}

/** How many shells are still running (for tests). */
export function liveShellCount(): number {
	return liveGroups.size;
}

function defaultShell(): string {
	return existsSync("/bin/bash") ? "/bin/bash" : "sh";
}

function isDirectory(path: string): boolean {
	return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

/**
 * Runs `command` with `<shell> -c` in its own process group. Resolves once the shell has exited and
 * both output streams have ended, also when cancelled or timed out (then the whole group is killed).
 * Rejects only when the working directory is missing or the shell cannot be started.
 */
export function runShell(options: ShellRunOptions): Promise<ShellRunResult> {
	if (!isDirectory(options.cwd)) {
		return Promise.reject(new Error(`Working directory does not exist: ${options.cwd}`));
	}
	const limits = outputLimits(options);
	const tail = new RollingTail(limits);
	const spillDir = options.spillDir ?? tmpdir();
	const maxSpillBytes = options.maxSpillBytes ?? MAX_SPILL_BYTES;
	let spill: SpillFile | undefined;
	let spillRefused = false;

	/** `newlines`: the LF count of the bytes read, which decoding and sanitising never change. */
	const collect = (channel: "stdout" | "stderr", text: string, newlines: number): void => {
		if (!text) return;
		const bytes = Buffer.byteLength(text);
		if (!spill && !spillRefused && tail.totalBytes + bytes > limits.maxBytes) {
			// Until now the tail holds everything, so the file can start from the first byte.
			spill = SpillFile.create(spillDir, maxSpillBytes);
			spillRefused = !spill;
			spill?.write(tail.text());
		}
		spill?.write(text, bytes);
		tail.push(text, bytes, newlines);
		options.onData?.(channel, text);
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
		return Promise.resolve(finish({ cancelled: true, timedOut: false, code: null, signal: null }));
	}
	return new Promise<ShellRunResult>((resolve, reject) => {
		const shell = options.shellPath ?? defaultShell();
		const child = spawn(shell, ["-c", options.command], {
			cwd: options.cwd,
			env: options.env ?? process.env,
			stdio: ["ignore", "pipe", "pipe"],
			detached: true,
		});
		const groupId = child.pid;
		// Without a pid the spawn failed, and "error" follows.
		const started = groupId !== undefined;
		let cancelled = false;
		let timedOut = false;
		let killTimer: NodeJS.Timeout | undefined;
		let timeoutTimer: NodeJS.Timeout | undefined;
		if (groupId !== undefined) liveGroups.add(groupId);

		const terminate = (): void => {
			if (groupId === undefined || killTimer !== undefined) return;
			signalGroup(groupId, "SIGTERM");
			killTimer = setTimeout(() => signalGroup(groupId, "SIGKILL"), KILL_GRACE_MS);
		};
		const onAbort = (): void => {
			if (timedOut) return;
			cancelled = true;
			terminate();
		};
		const cleanUp = (): void => {
			options.signal?.removeEventListener("abort", onAbort);
			clearTimeout(timeoutTimer);
			clearTimeout(killTimer);
			if (groupId !== undefined) liveGroups.delete(groupId);
		};

		options.signal?.addEventListener("abort", onAbort, { once: true });
		const timeoutMs = options.timeoutMs;
		if (timeoutMs !== undefined && Number.isFinite(timeoutMs) && timeoutMs > 0) {
			timeoutTimer = setTimeout(() => {
				if (cancelled) return;
				timedOut = true;
				terminate();
			}, timeoutMs);
		}

		for (const channel of ["stdout", "stderr"] as const) {
			const decoder = new ShellTextDecoder();
			const stream = child[channel];
			stream.on("data", (chunk: Buffer) => collect(channel, decoder.write(chunk), countNewlineBytes(chunk)));
			// What the decoder held back (a cut-off escape sequence or character) holds no LF.
			stream.once("end", () => collect(channel, decoder.end(), 0));
		}

		child.once("error", (error) => {
			if (started) return;
			cleanUp();
			reject(new Error(`Could not start the shell ${shell}: ${error.message}`, { cause: error }));
		});
		// "close" comes after the exit and after both streams ended, so every delta came before it.
		child.once("close", (code, signal) => {
			if (!started) return;
			// Members that survived SIGTERM but closed their output must not outlive the command.
			if (groupId !== undefined && killTimer !== undefined) signalGroup(groupId, "SIGKILL");
			cleanUp();
			resolve(finish({ cancelled, timedOut, code, signal }));
		});
	});
}
