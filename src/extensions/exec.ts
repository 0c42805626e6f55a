import { spawn } from "node:child_process";
import { timerDelay } from "../llm/timer-limit.js";
import { errorText } from "./host.js";
import type { ExecOptions, ExecResult } from "./types.js";

/** How long a process may ignore SIGTERM before it gets SIGKILL. */
const KILL_GRACE_MS = 2000;

/**
 * Runs `command` with `args` directly (no shell), collecting stdout and stderr. Never rejects: a
 * process that cannot start resolves with code 1 and the reason appended to stderr.
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
		const child = spawn(command, args, {
			cwd: options.cwd,
			env: options.env ?? process.env,
			shell: false,
			stdio: ["ignore", "pipe", "pipe"],
		});
		child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
			stdout += chunk;
		});
		child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
			stderr += chunk;
		});

		const kill = () => {
			if (killed || settled) return;
			killed = true;
			child.kill("SIGTERM");
			setTimeout(() => {
				if (!settled) child.kill("SIGKILL");
			}, KILL_GRACE_MS).unref();
		};
		const timer = options.timeout && options.timeout > 0 ? setTimeout(kill, timerDelay(options.timeout)) : undefined;
		options.signal?.addEventListener("abort", kill, { once: true });

		const finish = (code: number) => {
			if (settled) return;
			settled = true;
			if (timer) clearTimeout(timer);
			options.signal?.removeEventListener("abort", kill);
			resolve({ stdout, stderr, code, killed });
		};
		child.on("error", (error) => {
			stderr += `${stderr && !stderr.endsWith("\n") ? "\n" : ""}${errorText(error)}`;
			finish(1);
		});
		child.on("close", (code) => finish(code ?? 1));
	});
}
