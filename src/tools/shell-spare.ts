import type { ChildProcess } from "node:child_process";
import { statSync } from "node:fs";
import type { Readable, Writable } from "node:stream";
import { childProcessModule } from "../platform/lazy-builtins.js";
import { cancelNetworkWait, duringNetworkWait } from "../platform/network-wait.js";
import { newShellTag, sendSignal, taggedEnvironment } from "./process-tree.js";

/**
 * A spare shell, started while nothing waits for it. Node starts a child by forking this whole
 * process, synchronously, on the event loop, in time that grows with this process's memory
 * (measured: 1.6 ms at 46 MB of RSS, 4.7 ms at 98 MB, 11.6 ms at 256 MB), and a long session paid
 * that again for every command. The spare is `bash -c BOOTSTRAP bash`, started as a shell for a
 * command is (tagged environment, working directory, a process group of its own) and waiting for
 * its command on a pipe (fd 3); given one, it evaluates it. The command sees what it would see
 * under `bash -c`: `$0`, no arguments, the same options, environment, working directory, process
 * group and pid. What differs: a syntax error is reported as `bash: eval: line 1: ...` rather than
 * `bash: -c: line 1: ...`, and bash does not exec a last external command in place of itself, so
 * a command killed by a signal ends the shell with status 128+n (and bash's line saying so)
 * rather than with the signal. bash reads the pipe a byte at a time: long commands, and shells
 * other than /bin/bash, start a shell of their own as before.
 */
export const BOOTSTRAP =
	'IFS= read -r -d "" __atomic_script <&3 || exit 0; exec 3<&-; eval "unset __atomic_script; $__atomic_script"';

/** Longer commands start a shell of their own: bash would read them a byte at a time. */
export const SPARE_MAX_COMMAND_BYTES = 2048;
/**
 * When a spare is made after a command: while the next model request is awaited (the agent loop
 * sends one with the command's result), or this long after the command ended, whichever is first.
 */
export const SPARE_DELAY_MS = 50;
/**
 * Variables that make bash run code at start-up (BASH_ENV, ENV) or trace it (SHELLOPTS, BASHOPTS):
 * in a spare that would happen before its command is known, or show the bootstrap.
 */
const START_UP_VARIABLES = ["BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS"];

/** A shell that runs a command: its process, output pipes and tag (process-tree.ts). */
export interface StartedShell {
	child: ChildProcess;
	stdout: Readable;
	stderr: Readable;
	tag: string;
}

/** What a command's shell is started with. */
export interface ShellSpec {
	shell: string;
	cwd: string;
	env: NodeJS.ProcessEnv;
}

interface Spare extends StartedShell {
	input: Writable;
	/** shell, working directory (and its inode) and environment: what a command must share. */
	key: string;
	exited: boolean;
	/** Ends the spare when its process or pipe fails before it is taken. */
	onError: () => void;
}

let spare: Spare | undefined;
let exitHookInstalled = false;
const SPARE_WORK = "spare-shell";

/** Whether commands with this spec may run in a spare: bash, and no start-up code of its own. */
function eligible(spec: ShellSpec): boolean {
	return spec.shell === "/bin/bash" && START_UP_VARIABLES.every((name) => spec.env[name] === undefined);
}

/** undefined when the working directory is gone: the command then starts (and fails) as before. */
function keyOf(spec: ShellSpec): string | undefined {
	const stats = statSync(spec.cwd, { throwIfNoEntry: false });
	if (!stats?.isDirectory()) return undefined;
	return `${spec.shell}\0${spec.cwd}\0${stats.dev}:${stats.ino}\0${JSON.stringify(spec.env)}`;
}

function discard(shell: Spare): void {
	if (spare === shell) spare = undefined;
	if (!shell.exited && shell.child.pid !== undefined) sendSignal(-shell.child.pid, "SIGKILL");
	shell.input.destroy();
}

function create(spec: ShellSpec, key: string): void {
	const tag = newShellTag();
	let child: ChildProcess;
	try {
		child = childProcessModule().spawn(spec.shell, ["-c", BOOTSTRAP, spec.shell], {
			cwd: spec.cwd,
			env: taggedEnvironment(spec.env, tag),
			stdio: ["ignore", "pipe", "pipe", "pipe"],
			detached: true,
		});
	} catch (error) {
		// A working directory that is a file, say: the command's own start reports it.
		if (error instanceof Error) return;
		throw error;
	}
	const [, stdout, stderr, input] = child.stdio;
	if (!stdout || !stderr || !input || !("write" in input) || !("read" in stdout) || !("read" in stderr)) {
		child.kill("SIGKILL");
		return;
	}
	const made: Spare = { child, stdout, stderr, input, tag, key, exited: false, onError: () => discard(made) };
	// Until it is taken, the spare keeps neither this process alive nor its errors unheard.
	child.on("error", made.onError);
	child.once("exit", () => {
		made.exited = true;
		if (spare === made) spare = undefined;
	});
	input.on("error", made.onError);
	// What bash prints as it starts (a locale warning) waits in the pipes: it is the command's output.
	child.unref();
	for (const stream of [stdout, stderr, input]) unrefStream(stream);
	spare = made;
	if (!exitHookInstalled) {
		exitHookInstalled = true;
		process.once("exit", () => {
			if (spare) discard(spare);
		});
	}
}

function ignoreError(): void {
	// See takeSpare.
}

function unrefStream(stream: Readable | Writable): void {
	if ("unref" in stream && typeof stream.unref === "function") stream.unref();
}

function refStream(stream: Readable | Writable): void {
	if ("ref" in stream && typeof stream.ref === "function") stream.ref();
}

/** Makes a spare for commands of `spec` unless one is ready (the idle preload, and after a command). */
export function prepareSpare(spec: ShellSpec): void {
	if (!eligible(spec)) return;
	const key = keyOf(spec);
	if (key === undefined) return;
	if (spare && !spare.exited && spare.key === key) return;
	if (spare) discard(spare);
	create(spec, key);
}

/**
 * Makes a spare after a command ended: the fork blocks the event loop, so it waits for a moment
 * when nothing else would run (a model request's reply is awaited: network-wait.ts), at most SPARE_DELAY_MS. A command that
 * starts first goes without.
 */
export function scheduleSpare(spec: ShellSpec): void {
	if (!eligible(spec)) return;
	duringNetworkWait(SPARE_WORK, () => prepareSpare(spec), SPARE_DELAY_MS);
}

/**
 * The spare, given `command` to run, when it was made for `spec`; undefined otherwise (the caller
 * starts a shell of its own). A spare made for other settings is ended.
 */
export function takeSpare(spec: ShellSpec, command: string): StartedShell | undefined {
	cancelNetworkWait(SPARE_WORK);
	const ready = spare;
	if (!ready || ready.exited) return undefined;
	if (command.includes("\0") || Buffer.byteLength(command) > SPARE_MAX_COMMAND_BYTES) return undefined;
	if (!eligible(spec) || keyOf(spec) !== ready.key) {
		discard(ready);
		return undefined;
	}
	spare = undefined;
	// From now on the command's run (shell.ts) answers for the process; a late error on the written
	// pipe (the shell already gone) is the run's exit to report.
	ready.child.off("error", ready.onError);
	ready.input.off("error", ready.onError);
	ready.input.on("error", ignoreError);
	ready.child.ref();
	for (const stream of [ready.stdout, ready.stderr]) refStream(stream);
	ready.input.end(`${command}\0`);
	return { child: ready.child, stdout: ready.stdout, stderr: ready.stderr, tag: ready.tag };
}

/** Ends the spare, if there is one. */
export function dropSpare(): void {
	cancelNetworkWait(SPARE_WORK);
	if (spare) discard(spare);
}

/** Whether a spare is ready (for tests). */
export function spareReady(): boolean {
	return spare !== undefined && !spare.exited;
}
