import type { ShellRunOptions, ShellRunResult } from "./shell.js";

/**
 * Where the read, write and edit tools read and write text when the disk is not the place: an
 * editor that holds unsaved buffers (ACP `fs/read_text_file`, `fs/write_text_file`). Paths are
 * absolute, already resolved against the session's working directory. Both methods may reject
 * with an Error whose message is written for the model ("File not found: <path>").
 */
export interface TextFileBackend {
	readTextFile(path: string, signal?: AbortSignal): Promise<string>;
	writeTextFile(path: string, content: string, signal?: AbortSignal): Promise<void>;
}

/**
 * Runs a bash command somewhere other than a child of this process (an editor's terminal). Keeps
 * runShell's contract: resolves with the result (cancelled, timed out, exit code), never rejects
 * for the command's own failure. `toolCallId` names the tool call the command belongs to.
 */
export type ShellRunner = (options: ShellRunOptions, toolCallId: string) => Promise<ShellRunResult>;
