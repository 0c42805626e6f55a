import { type AgentContext, type FileSystemCapabilities, RequestError } from "@agentclientprotocol/sdk";
import type { TextFileBackend } from "../tools/index.js";
import { diskTextFiles as disk } from "./disk-files.js";
import { errorText } from "./update-queue.js";

/** The ACP "resource not found" code a client answers a missing file with. */
const NOT_FOUND = -32002;

function isMissing(error: unknown): boolean {
	if (error instanceof RequestError) return error.code === NOT_FOUND;
	return error instanceof Error && "code" in error && (error.code === "ENOENT" || error.code === "ENOTDIR");
}

/**
 * The file backend of a session whose client offers `fs/read_text_file` and/or
 * `fs/write_text_file`: what the client offers goes through it (unsaved buffers are read, writes
 * land in the editor), the rest through the disk. Undefined when the client offers neither (the
 * tools then use the disk as in RPC mode). Errors are worded for the model.
 */
export function clientFileBackend(
	client: AgentContext,
	sessionId: () => string,
	fs: FileSystemCapabilities | undefined,
): TextFileBackend | undefined {
	if (!fs?.readTextFile && !fs?.writeTextFile) return undefined;
	const backend: TextFileBackend = {
		async readTextFile(path, signal) {
			try {
				if (!fs.readTextFile) return await disk.readTextFile(path, signal);
				const response = await client.request(
					"fs/read_text_file",
					{ sessionId: sessionId(), path },
					{ cancellationSignal: signal },
				);
				return response.content;
			} catch (error) {
				if (isMissing(error)) throw new Error(`File not found: ${path}`, { cause: error });
				throw new Error(`Cannot read ${path}: ${errorText(error)}`, { cause: error });
			}
		},
		async writeTextFile(path, content, signal) {
			try {
				if (!fs.writeTextFile) return await disk.writeTextFile(path, content, signal);
				await client.request(
					"fs/write_text_file",
					{ sessionId: sessionId(), path, content },
					{ cancellationSignal: signal },
				);
			} catch (error) {
				throw new Error(`Cannot write ${path}: ${errorText(error)}`, { cause: error });
			}
		},
	};
	return backend;
}

/** A file's text through `backend` (or the disk); undefined when it does not exist or cannot be read. */
export async function readTextOrUndefined(
	backend: TextFileBackend | undefined,
	path: string,
): Promise<string | undefined> {
	try {
		return await (backend ?? disk).readTextFile(path);
	} catch (error) {
		// Missing, not text, or refused: there is no text to show (the tool reports its own error).
		if (error instanceof Error) return undefined;
		throw error;
	}
}
