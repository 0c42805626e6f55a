import { timerDelay } from "../llm/timer-limit.js";
import { childProcessModule } from "../platform/lazy-builtins.js";
import { newShellTag, taggedEnvironment } from "../tools/process-tree.js";
import { PIPE_GRACE_MS, releaseStream } from "../tools/shell.js";
import { registerShell, shellExited, stopShellProcesses } from "../tools/shell-processes.js";
import { errorText } from "./host.js";
import type { ExecOptions, ExecResult } from "./types.js";

/**
 * Runs `command` with `args` directly (no shell), collecting stdout and stderr. Never rejects: a
 * process that cannot start resolves with code 1 and the reason appended to stderr. Like the bash
 * tool's commands (docs/commands-and-search.md), it is done when the program exits, even if
 * processes it started hold its output open; on timeout or abort every process it started is
 * ended (setsid ones too), and what it leaves running is ended when Atomic exits.
 */
export function execCommand(
	command: string,
	args: string[],
	options: ExecOptions & { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<ExecResult> {
	if (options.signal?.aborted) return Promise.resolve({ stdout: "", stderr: "", code: 1, killed: true });
	return new Promise((resolve) => {
		let stdout = "";
		let stderr = "";
		let killed = false;
		let settled = false;
		let exitCode: number | undefined;
		let graceTimer: NodeJS.Timeout | undefined;
		const tag = newShellTag();
		const child = childProcessModule().spawn(command, args, {
			cwd: options.cwd,
			env: taggedEnvironment(options.env ?? process.env, tag),
			shell: false,
			stdio: ["ignore", "pipe", "pipe"],
			detached: true,
		});
		if (child.pid !== undefined) registerShell(tag, child.pid);
		child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
			if (!settled) stdout += chunk;
		});
		child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
			if (!settled) stderr += chunk;
		});

		const kill = () => {
			if (killed || settled) return;
			killed = true;
			stopShellProcesses(tag);
		};
		const timer = options.timeout && options.timeout > 0 ? setTimeout(kill, timerDelay(options.timeout)) : undefined;
		options.signal?.addEventListener("abort", kill, { once: true });

		const finish = (code: number) => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			clearTimeout(graceTimer);
			options.signal?.removeEventListener("abort", kill);
			releaseStream(child.stdout);
			releaseStream(child.stderr);
			resolve({ stdout, stderr, code, killed });
		};
		child.on("error", (error) => {
			stderr += `${stderr && !stderr.endsWith("\n") ? "\n" : ""}${errorText(error)}`;
			finish(1);
		});
		child.on("exit", (code) => {
			shellExited(tag);
			exitCode = code ?? 1;
			// Processes the program left in the background may hold its output open for ever.
			graceTimer = setTimeout(() => finish(exitCode ?? 1), PIPE_GRACE_MS);
		});
		child.on("close", (code) => finish(exitCode ?? code ?? 1));
	});
}
