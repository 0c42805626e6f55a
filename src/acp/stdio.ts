import { takeOverStdoutWrites } from "../platform/process-io.js";

/** The protocol's byte streams over stdin and stdout, as the SDK's ndJsonStream takes them. */
export interface ProtocolStreams {
	output: WritableStream<Uint8Array>;
	input: ReadableStream<Uint8Array>;
}

/**
 * Keeps the real stdout for protocol messages and sends every other write (console.log, libraries,
 * extensions) to stderr, so nothing can corrupt a message. Each protocol write waits until stdout
 * has taken it (backpressure).
 */
export function takeOverStdout(stdout: NodeJS.WriteStream): WritableStream<Uint8Array> {
	const write = takeOverStdoutWrites(stdout);
	return new WritableStream<Uint8Array>({
		write: (chunk) =>
			new Promise<void>((resolve, reject) => {
				write(chunk, (error) => (error ? reject(error) : resolve()));
			}),
	});
}

/** stdin as a byte stream that ends at EOF (or on a read error). */
export function readStdin(stdin: NodeJS.ReadableStream): ReadableStream<Uint8Array> {
	return new ReadableStream<Uint8Array>({
		start(controller) {
			let open = true;
			const close = () => {
				if (!open) return;
				open = false;
				controller.close();
			};
			stdin.on("data", (chunk: Buffer | string) => {
				if (open) controller.enqueue(typeof chunk === "string" ? Buffer.from(chunk) : new Uint8Array(chunk));
			});
			stdin.on("end", close);
			stdin.on("error", close);
		},
	});
}
