import type { Timeout, TimeoutPolicy } from "./pending.js";

export interface RpcClientOptions {
	/** The executable (default: this Node, `process.execPath`). */
	command?: string;
	/** Arguments before `--mode rpc` (default: `[cliPath]`). */
	commandArgs?: string[];
	/** The CLI script (default: `dist/cli.js` of this package). */
	cliPath?: string;
	/** Extra CLI arguments after `--mode rpc` (`--no-session`, `--model`, `-e`, ...). */
	args?: string[];
	cwd?: string;
	/** The child's whole environment (default: this process's). */
	env?: NodeJS.ProcessEnv;
	/** How long `start()` waits for the `ready` event (default 30 s). */
	startTimeoutMs?: number;
	/** Request timeouts: a default (30 s) and per command type; some commands have none by default. */
	timeouts?: TimeoutPolicy;
	/** How long `close()` waits for an exit after closing stdin before SIGTERM (default 10 s). */
	closeTimeoutMs?: number;
	/** How long `close()` waits after SIGTERM before SIGKILL (default 2 s). */
	killGraceMs?: number;
	/** How much of the child's stderr errors carry (characters, default 8192). */
	stderrTailChars?: number;
	/** Receives the child's stderr as it arrives. */
	onStderr?: (text: string) => void;
	/**
	 * Problems that belong to no request: a listener or UI handler that threw, a malformed record,
	 * a response without id. Default: `process.emitWarning`.
	 */
	onError?: (error: Error) => void;
}

export interface CallOptions {
	/** Milliseconds, or false for none; overrides the client's policy for this call. */
	timeoutMs?: Timeout;
}
