import type { Timeout, TimeoutPolicy } from "./pending.js";
import type { ProcessExit } from "./process.js";
import type { AttachResult, ReadyEvent } from "./types.js";

/** Options of a client that spawns `atomic --mode rpc` and speaks to it over stdio. */
export interface RpcClientOptions {
	/** Set only for a network client (NetworkClientOptions). */
	url?: undefined;
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

/** Options of a client of `atomic serve`, over WebSocket. */
export interface NetworkClientOptions {
	/** The server's WebSocket endpoint: `ws://host:port/ws` or `wss://host:port/ws`. */
	url: string;
	/** A token of `atomic token create`, sent as `Authorization: Bearer <token>`. */
	token: string;
	/** The session to attach to; without it `start()` starts a new session. */
	sessionId?: string;
	/** The folder a new session starts in (default: the server's `--cwd`). */
	cwd?: string;
	/** Certificate authorities to trust for `wss://` (PEM), for a server with a self-signed certificate. */
	ca?: string | Buffer | (string | Buffer)[];
	/** How long `start()` waits to be connected and attached (default 30 s). */
	startTimeoutMs?: number;
	/** Request timeouts, as for a process; a request waiting for a reconnect waits within its timeout. */
	timeouts?: TimeoutPolicy;
	/**
	 * The pause before each reconnect: from `minDelayMs` (default 100), doubling up to `maxDelayMs`
	 * (default 5000). `false`: a dropped connection ends the client.
	 */
	reconnect?: { minDelayMs?: number; maxDelayMs?: number } | false;
	/** How long `close()` waits for the server to acknowledge the close before cutting the socket (default 2 s). */
	closeTimeoutMs?: number;
	/** Problems that belong to no request (see RpcClientOptions.onError). */
	onError?: (error: Error) => void;
}

/** Either kind of client. */
export type AnyClientOptions = RpcClientOptions | NetworkClientOptions;

/** How a network client's connection ended (what `close()` and `exited` resolve with). */
export interface ConnectionEnd {
	/** The close code of the last connection (1000 after `close()`), null when none was open. */
	code: number | null;
	reason: string;
	/** Why the client ended when it was not `close()`: a refused token, a failed start. */
	error?: Error;
}

/**
 * What `start()` resolves with, by the type of the client's `url`: the `ready` event of a process
 * (no url), the attachment of a network client (a url).
 */
export type StartedWith<Url extends string | undefined> = Url extends string ? AttachResult : ReadyEvent;
/** What `close()` and `exited` resolve with: the process's exit, or how the connection ended. */
export type EndedWith<Url extends string | undefined> = Url extends string ? ConnectionEnd : ProcessExit;

/** Whether options are a network client's. */
export function isNetworkOptions(options: AnyClientOptions): options is NetworkClientOptions {
	return typeof options.url === "string";
}

export interface CallOptions {
	/** Milliseconds, or false for none; overrides the client's policy for this call. */
	timeoutMs?: Timeout;
}
