import type { Static } from "typebox";
import type { AgentTool, AgentToolResult, ToolUpdateCallback } from "../agent/types.js";
import { Type } from "../llm/schema-builders.js";
import {
	denialNotice,
	findDenials,
	type Sandbox,
	type SandboxDetails,
	type SandboxLaunch,
	type SandboxPolicy,
	SandboxUnavailableError,
} from "../sandbox/index.js";
import type { ShellRunner } from "./file-backend.js";
import { runShell, type ShellLauncher, type ShellRunResult } from "./shell.js";
import { outputLimits, RollingTail } from "./shell-output.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, type TruncationResult } from "./truncate.js";
import type { ToolOptions } from "./types.js";

const bashParameters = Type.Object({
	command: Type.String({
		description: "The command to run with bash -c, e.g. `npm test 2>&1 | tail -50` or `ls -la src`.",
	}),
	timeout: Type.Optional(
		Type.Number({
			description:
				"Seconds after which the command and every process it started are killed. Omit for no limit; set one for anything that might hang.",
		}),
	),
	escalate: Type.Optional(
		Type.Boolean({
			description:
				"Only after the sandbox denied this command and it cannot be done inside: true asks the user to run it once outside the sandbox.",
		}),
	),
	justification: Type.Optional(
		Type.String({ description: "With escalate: why the command must run outside the sandbox, shown to the user." }),
	),
});

export type BashToolParameters = typeof bashParameters;

export interface BashToolDetails {
	exitCode?: number;
	/** Null in progress updates. */
	truncation?: TruncationResult | null;
	/** Null in progress updates. */
	fullOutputPath?: string | null;
	/** Set when the sandbox was on: its mode, network and what it denied. */
	sandbox?: SandboxDetails & { escalated?: boolean };
}

export interface BashToolOptions extends ToolOptions {
	shellPath?: string;
	spillDir?: string;
	/** The command's environment; default: this process's. */
	env?: NodeJS.ProcessEnv;
	/** Runs the command instead of a local shell (an editor's terminal); default runShell. */
	runShell?: ShellRunner;
	/** The session's sandbox: when on, commands run in it (locally, never in an editor's terminal). */
	sandbox?: Sandbox;
}

/** At most one progress update per this many milliseconds, plus one at the end. */
const UPDATE_INTERVAL_MS = 50;

/** The bracketed line telling the model what part of the output it sees and where the rest is. */
function truncationNotice(truncation: TruncationResult, fullOutputPath: string | undefined): string {
	const where = fullOutputPath ? ` Full output: ${fullOutputPath}` : "";
	const endLine = truncation.totalLines;
	if (truncation.lastLinePartial) {
		return `[Showing the last ${formatSize(truncation.outputBytes)} of line ${endLine}.${where}]`;
	}
	const startLine = endLine - truncation.outputLines + 1;
	const limit = truncation.truncatedBy === "bytes" ? ` (${formatSize(truncation.maxBytes)} limit)` : "";
	return `[Showing lines ${startLine}-${endLine} of ${truncation.totalLines}${limit}.${where}]`;
}

/** The output without its final newline, which would only separate it from what the tool appends. */
function shownOutput(result: ShellRunResult): string {
	return result.output.replace(/\n$/, "");
}

/** The output as the model reads it: the kept tail (or "(no output)") and, when cut, a notice. */
function resultText(result: ShellRunResult): string {
	const output = shownOutput(result) || "(no output)";
	if (!result.truncated) return output;
	return `${output}\n\n${truncationNotice(result.truncation, result.fullOutputPath)}`;
}

/** Progress reporting: keeps the output's tail and sends it at most every UPDATE_INTERVAL_MS. */
class ProgressReporter {
	readonly #tail = new RollingTail(outputLimits({}));
	readonly #onUpdate: ToolUpdateCallback<BashToolDetails>;
	#timer: NodeJS.Timeout | undefined;
	#lastSent = 0;
	#pending = false;

	constructor(onUpdate: ToolUpdateCallback<BashToolDetails>) {
		this.#onUpdate = onUpdate;
	}

	add(text: string): void {
		this.#tail.push(text);
		this.#pending = true;
		if (this.#timer !== undefined) return;
		const wait = this.#lastSent + UPDATE_INTERVAL_MS - Date.now();
		if (wait <= 0) this.#send();
		else this.#timer = setTimeout(() => this.#send(), wait);
	}

	/** Sends what has not been sent yet; no update follows. */
	finish(): void {
		clearTimeout(this.#timer);
		this.#timer = undefined;
		if (this.#pending) this.#send();
	}

	#send(): void {
		this.#timer = undefined;
		this.#pending = false;
		this.#lastSent = Date.now();
		const text = this.#tail.truncate().content;
		this.#onUpdate({ content: [{ type: "text", text }], details: { truncation: null, fullOutputPath: null } });
	}
}

function checkTimeout(timeout: number | undefined): void {
	if (timeout === undefined) return;
	if (!Number.isFinite(timeout) || timeout <= 0) throw new Error("timeout must be a positive number of seconds");
}

/** The classic `bash` tool: runs a command in the working directory and returns its output's tail. */
export function createBashTool(options: BashToolOptions): AgentTool<BashToolParameters, BashToolDetails> {
	return {
		name: "bash",
		label: "bash",
		description:
			`Run a bash command in the working directory (${options.cwd}) and return its stdout and stderr ` +
			`combined, in the order they were written. Output is truncated to the last ${DEFAULT_MAX_LINES} lines ` +
			`or ${DEFAULT_MAX_BYTES / 1024} KB, whichever is hit first; when truncated, the full output is saved ` +
			"to a file whose path is given, so you can read or search it. A non-zero exit code is reported " +
			"with the output. stdin is closed, so interactive commands fail; pass flags such as -y instead.",
		parameters: bashParameters,
		async execute(toolCallId, args: Static<BashToolParameters>, signal, onUpdate) {
			checkTimeout(args.timeout);
			const sandboxed = await sandboxFor(options.sandbox, options.cwd, toolCallId, args.escalate === true);
			const progress = new ProgressReporter(onUpdate);
			let result: ShellRunResult;
			let launch: SandboxLaunch | undefined;
			try {
				const policy = sandboxed && !sandboxed.escalated ? sandboxed.policy : undefined;
				const sandbox = options.sandbox;
				const launcher: ShellLauncher | undefined =
					policy && sandbox
						? (shell, command) => {
								const made = sandbox.launch(policy, shell, command);
								launch = made;
								return made;
							}
						: undefined;
				// An editor's terminal cannot be sandboxed: a sandboxed command runs here.
				const run: ShellRunner = (sandboxed && !sandboxed.escalated ? undefined : options.runShell) ?? runShell;
				result = await run(
					{
						command: args.command,
						cwd: options.cwd,
						env: options.env,
						signal,
						timeoutMs: args.timeout === undefined ? undefined : args.timeout * 1000,
						shellPath: options.shellPath,
						spillDir: options.spillDir,
						onData: (_channel, text) => progress.add(text),
						launcher,
					},
					toolCallId,
				);
			} finally {
				progress.finish();
				launch?.cleanup();
			}
			let text = resultText(result);
			const details: BashToolDetails = {};
			if (result.exitCode !== undefined) details.exitCode = result.exitCode;
			if (result.truncated) details.truncation = result.truncation;
			if (result.fullOutputPath !== undefined) details.fullOutputPath = result.fullOutputPath;
			if (sandboxed) {
				const { policy, escalated } = sandboxed;
				const denied = escalated ? [] : findDenials(policy, result.output, result.exitCode);
				for (const host of launch?.refusedHosts() ?? []) {
					if (!denied.some((seen) => seen.kind === "network" && seen.target === host)) {
						denied.push({ kind: "network", target: host });
					}
				}
				details.sandbox = { mode: policy.mode, network: policy.network, denied };
				if (escalated) {
					details.sandbox.escalated = true;
					text = `[Ran outside the sandbox, as the user approved.]\n${text}`;
				} else if (denied.length > 0) text = `${text}\n\n${denialNotice(policy, denied)}`;
			}

			// Thrown, so the loop reports an error; the output so far still reaches the model.
			const before = shownOutput(result) ? `${text}\n\n` : "";
			if (result.cancelled) throw new Error(`${before}Command aborted`);
			if (result.timedOut) throw new Error(`${before}Command timed out after ${args.timeout} seconds`);
			if (result.exitCode === undefined) {
				return errorResult(`${text}\n\nCommand was killed by ${result.signal ?? "a signal"}`, details);
			}
			if (result.exitCode !== 0) return errorResult(`${text}\n\nCommand exited with code ${result.exitCode}`, details);
			return { content: [{ type: "text", text }], details };
		},
	};
}

/**
 * How a call runs when the sandbox is on: in it, or (an approved escalation) outside it. Throws
 * when the sandbox cannot be made (nothing runs unprotected) and when an escalation was not
 * approved. Undefined when the sandbox is off.
 */
async function sandboxFor(
	sandbox: Sandbox | undefined,
	cwd: string,
	toolCallId: string,
	escalate: boolean,
): Promise<{ policy: SandboxPolicy; escalated: boolean } | undefined> {
	const policy = sandbox?.policy(cwd);
	if (!sandbox || !policy) return undefined;
	if (escalate) {
		if (sandbox.takeEscalation(toolCallId)) return { policy, escalated: true };
		throw new Error("Running this command outside the sandbox was not approved by the user; it was not run.");
	}
	const availability = sandbox.available(policy.writableRoots);
	if (!availability.available) throw new SandboxUnavailableError(availability.reason ?? "unknown");
	await sandbox.prepare(policy);
	return { policy, escalated: false };
}

function errorResult(text: string, details: BashToolDetails): AgentToolResult<BashToolDetails> {
	return { content: [{ type: "text", text }], details, isError: true };
}
