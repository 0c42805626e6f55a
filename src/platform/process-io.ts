/** What a protocol mode writes with: the real stdout's write, kept before stdout is redirected. */
export type ProtocolWrite = (chunk: string | Uint8Array, callback?: (error?: Error | null) => void) => boolean;

/**
 * Keeps the real stdout for protocol messages and sends every other write to it (console.log,
 * libraries, extensions) to stderr, so nothing can corrupt a message. Returns the real write.
 */
export function takeOverStdoutWrites(stdout: NodeJS.WriteStream): ProtocolWrite {
	const write = stdout.write.bind(stdout) as ProtocolWrite;
	const stderrWrite = process.stderr.write.bind(process.stderr);
	stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) =>
		stderrWrite(chunk, ...(rest as [BufferEncoding, () => void]))) as typeof stdout.write;
	return write;
}

/** The signals that end a protocol mode, with the exit code each gives (128 + signal number). */
const TERMINATION_SIGNALS = [
	["SIGTERM", 143],
	["SIGINT", 130],
	["SIGHUP", 129],
] as const;

/** Calls `handler` with the exit code when the process gets SIGTERM, SIGINT or SIGHUP. */
export function onTerminationSignal(handler: (code: number) => void): void {
	for (const [signal, code] of TERMINATION_SIGNALS) process.on(signal, () => handler(code));
}
