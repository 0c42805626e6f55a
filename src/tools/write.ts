import { dirname } from "node:path";
import type { AgentTool } from "../agent/types.js";
import { Type } from "../llm/schema-builders.js";
import { ensureDirectory } from "../platform/ensure-directory.js";
import { fsPromises } from "../platform/lazy-builtins.js";
import { buildEditDiff } from "./edit-diff.js";
import { errorMessage, openToolFile, throwIfAborted } from "./file-access.js";
import { withFileMutationQueue } from "./file-mutation-queue.js";
import { resolveToolPath } from "./paths.js";
import { checkToolWrite } from "./sandbox-paths.js";
import type { ToolOptions } from "./types.js";

const writeSchema = Type.Object({
	path: Type.String({ description: "Path to the file to write (relative to the working directory, or absolute)" }),
	content: Type.String({ description: "Content to write to the file" }),
});

/** Files larger than this (before or after) get no diff: it would cost more than it shows. */
const DIFF_LIMIT_BYTES = 1024 * 1024;

/**
 * The file's text before the write ("" when it does not exist), or undefined when no diff is made
 * of it: not a regular text file, too large, or not readable (a write-only file is still written).
 */
async function previousText(path: string): Promise<string | undefined> {
	try {
		const stats = await fsPromises().stat(path);
		if (!stats.isFile() || stats.size > DIFF_LIMIT_BYTES) return undefined;
		const bytes = await fsPromises().readFile(path);
		return bytes.includes(0) ? undefined : bytes.toString("utf8");
	} catch (error) {
		const missing = error instanceof Error && "code" in error && (error.code === "ENOENT" || error.code === "ENOTDIR");
		return missing ? "" : undefined;
	}
}

export function createWriteTool(options: ToolOptions): AgentTool<typeof writeSchema> {
	return {
		name: "write",
		label: "write",
		description:
			"Write content to a file. Creates the file if it does not exist and overwrites it if it does. " +
			"Parent directories are created as needed.",
		parameters: writeSchema,
		async execute(_toolCallId, args, signal) {
			throwIfAborted(signal);
			const displayPath = args.path;
			const absolutePath = resolveToolPath(displayPath, options.cwd);
			let before: string | undefined;
			await withFileMutationQueue(absolutePath, async () => {
				throwIfAborted(signal);
				checkToolWrite(options, absolutePath);
				before = await previousText(absolutePath);
				try {
					await ensureDirectory(dirname(absolutePath));
				} catch (error) {
					throw new Error(`Cannot write ${displayPath}: ${errorMessage(error)}`, { cause: error });
				}
				// Opened without truncating: a special file is refused before anything is changed.
				const handle = await openToolFile(absolutePath, displayPath, "write", {
					verb: "write",
					directoryMessage: `${displayPath} is a directory`,
				});
				try {
					await handle.truncate(0);
					await handle.writeFile(args.content, "utf8");
				} catch (error) {
					throw new Error(`Cannot write ${displayPath}: ${errorMessage(error)}`, { cause: error });
				} finally {
					await handle.close();
				}
			});
			const bytes = Buffer.byteLength(args.content, "utf8");
			const text = `Successfully wrote ${bytes} bytes to ${displayPath}`;
			// What changed, for the people watching (clients show it as a diff); the model gets the text.
			const details =
				before !== undefined && bytes <= DIFF_LIMIT_BYTES
					? buildEditDiff(displayPath, before, args.content)
					: undefined;
			return details ? { content: [{ type: "text", text }], details } : { content: [{ type: "text", text }] };
		},
	};
}
