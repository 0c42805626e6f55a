import { dirname } from "node:path";
import type { AgentTool } from "../agent/types.js";
import { Type } from "../llm/schema-builders.js";
import { ensureDirectory } from "../platform/ensure-directory.js";
import { errorMessage, openToolFile, throwIfAborted } from "./file-access.js";
import { withFileMutationQueue } from "./file-mutation-queue.js";
import { resolveToolPath } from "./paths.js";
import { checkToolWrite } from "./sandbox-paths.js";
import type { ToolOptions } from "./types.js";

const writeSchema = Type.Object({
	path: Type.String({ description: "Path to the file to write (relative to the working directory, or absolute)" }),
	content: Type.String({ description: "Content to write to the file" }),
});

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
			await withFileMutationQueue(absolutePath, async () => {
				throwIfAborted(signal);
				checkToolWrite(options, absolutePath);
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
			return { content: [{ type: "text", text: `Successfully wrote ${bytes} bytes to ${displayPath}` }] };
		},
	};
}
