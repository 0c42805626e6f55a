/** The process answered a command with `success: false`. */
export class RpcCommandError extends Error {
	override readonly name = "RpcCommandError";

	constructor(
		/** The command type as the response names it. */
		readonly command: string,
		/** The response's `error` text, unchanged. */
		readonly errorText: string,
	) {
		super(`${command} failed: ${errorText}`);
	}
}

/**
 * The process could not be started, exited, crashed, or could not be written to. Every request
 * pending at that moment, and every later one, rejects with it.
 */
export class RpcProcessError extends Error {
	override readonly name = "RpcProcessError";

	constructor(
		message: string,
		readonly code: number | null,
		readonly signal: NodeJS.Signals | null,
		/** The last bytes the process wrote to stderr. */
		readonly stderrTail: string,
		options?: { cause?: unknown },
	) {
		super(stderrTail ? `${message}. Stderr: ${stderrTail}` : message, options);
	}
}

/** No response (or no awaited event) arrived in time. The process keeps running. */
export class RpcTimeoutError extends Error {
	override readonly name = "RpcTimeoutError";

	constructor(
		/** The command type, or `ready` / `idle` for the waits that are not commands. */
		readonly command: string,
		readonly timeoutMs: number,
		readonly stderrTail: string,
		/** What was awaited, for the message. */
		awaited = `the response to ${command}`,
	) {
		super(`Timed out after ${timeoutMs} ms waiting for ${awaited}`);
	}
}

/**
 * The connection to `atomic serve` could not be made, was refused (a bad or revoked token: HTTP
 * 401, or 403), or ended (`close()`, or reconnecting turned off). Every request pending at that
 * moment, and every later one, rejects with it.
 */
export class RpcConnectionError extends Error {
	override readonly name: string = "RpcConnectionError";

	constructor(
		message: string,
		/** The HTTP status when the server refused the connection. */
		readonly status?: number,
		options?: { cause?: unknown },
	) {
		super(message, options);
	}
}

/**
 * The connection dropped after this command was sent and before its response came: the command
 * may or may not have run. It is not sent again (a prompt must never run twice); the client
 * reconnects by itself. Read-only `get_*` commands are sent again instead of failing.
 */
export class RpcConnectionLostError extends RpcConnectionError {
	override readonly name: string = "RpcConnectionLostError";

	constructor(
		/** The command type. */
		readonly command: string,
		reason: string,
	) {
		super(
			`The connection was lost (${reason}) after ${command} was sent and before its response came: its outcome is unknown`,
		);
	}
}
