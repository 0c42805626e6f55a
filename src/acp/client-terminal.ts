import { existsSync } from "node:fs";
import type { AgentContext, TerminalHandle } from "@agentclientprotocol/sdk";
import type { ShellRunner, ShellRunOptions, ShellRunResult } from "../tools/index.js";
import { DEFAULT_MAX_BYTES, truncateTail } from "../tools/truncate.js";
import { errorText } from "./update-queue.js";

/** How much output the editor's terminal keeps for the model (it keeps the end). */
const OUTPUT_BYTE_LIMIT = 4 * DEFAULT_MAX_BYTES;

export interface TerminalHost {
	client: AgentContext;
	sessionId(): string;
	/** The command of `toolCallId` runs in `terminalId` (the tool call shows the terminal). */
	attach(toolCallId: string, terminalId: string): Promise<void>;
}

/**
 * A bash runner that runs each command in a terminal of the editor (`terminal/create`), shown in
 * its tool call while it runs; abort and timeouts kill it (`terminal/kill`), and the output the
 * terminal kept becomes the result the model reads. Always released.
 */
export function clientTerminalRunner(host: TerminalHost): ShellRunner {
	return (options, toolCallId) => runInTerminal(host, options, toolCallId);
}

async function runInTerminal(
	host: TerminalHost,
	options: ShellRunOptions,
	toolCallId: string,
): Promise<ShellRunResult> {
	const shell = options.shellPath ?? (existsSync("/bin/bash") ? "/bin/bash" : "sh");
	const terminal = await host.client.createTerminal({
		sessionId: host.sessionId(),
		command: shell,
		args: ["-c", options.command],
		cwd: options.cwd,
		outputByteLimit: OUTPUT_BYTE_LIMIT,
	});
	let cancelled = false;
	let timedOut = false;
	const kill = () => {
		terminal
			.kill()
			.catch((error: unknown) => process.stderr.write(`Warning: terminal/kill failed: ${errorText(error)}\n`));
	};
	const onAbort = () => {
		cancelled = true;
		kill();
	};
	const timer =
		options.timeoutMs !== undefined && Number.isFinite(options.timeoutMs) && options.timeoutMs > 0
			? setTimeout(() => {
					timedOut = true;
					kill();
				}, options.timeoutMs)
			: undefined;
	try {
		await host.attach(toolCallId, terminal.id);
		if (options.signal?.aborted) onAbort();
		else options.signal?.addEventListener("abort", onAbort, { once: true });
		const exit = await terminal.waitForExit();
		return await result(terminal, exit, cancelled, timedOut);
	} finally {
		clearTimeout(timer);
		options.signal?.removeEventListener("abort", onAbort);
		await terminal.release().catch((error: unknown) => {
			process.stderr.write(`Warning: terminal/release failed: ${errorText(error)}\n`);
		});
	}
}

async function result(
	terminal: TerminalHandle,
	exit: { exitCode?: number | null; signal?: string | null },
	cancelled: boolean,
	timedOut: boolean,
): Promise<ShellRunResult> {
	const output = await terminal.currentOutput();
	const text = output.output;
	const truncation = truncateTail(text);
	const signal = exit.signal ? signalName(exit.signal) : undefined;
	const run: ShellRunResult = {
		output: truncation.content,
		cancelled,
		timedOut,
		truncated: truncation.truncated || output.truncated,
		totalLines: truncation.totalLines,
		totalBytes: truncation.totalBytes,
		truncation,
	};
	if (!cancelled && !timedOut && typeof exit.exitCode === "number") run.exitCode = exit.exitCode;
	if (signal) run.signal = signal;
	return run;
}

const SIGNALS: readonly NodeJS.Signals[] = [
	"SIGTERM",
	"SIGKILL",
	"SIGINT",
	"SIGHUP",
	"SIGQUIT",
	"SIGABRT",
	"SIGPIPE",
	"SIGSEGV",
];

/** The signal a client names ("SIGTERM" or "TERM"), if it is one Node knows by that name. */
function signalName(signal: string): NodeJS.Signals | undefined {
	const name = signal.startsWith("SIG") ? signal : `SIG${signal}`;
	return SIGNALS.find((known) => known === name);
}
