import type { Dirent } from "node:fs";
import { join } from "node:path";
import type { Static } from "typebox";
import type { AgentTool, AgentToolResult } from "../agent/types.js";
import { Type } from "../llm/schema-builders.js";
import { fsPromises } from "../platform/lazy-builtins.js";
import { resolveToolPath } from "./paths.js";
import { checkToolRead } from "./sandbox-paths.js";
import { compareNames } from "./search/walker.js";
import { isFileSystemError, statToolPath, wholeNumber, withNotices } from "./search-support.js";
import { DEFAULT_MAX_BYTES, formatSize, type TruncationResult, truncateHead } from "./truncate.js";
import type { ToolOptions } from "./types.js";

const DEFAULT_LIMIT = 500;

const lsSchema = Type.Object({
	path: Type.Optional(Type.String({ description: "Directory to list (default: current directory)" })),
	limit: Type.Optional(Type.Number({ description: `Maximum number of entries to return (default: ${DEFAULT_LIMIT})` })),
});

export type LsToolInput = Static<typeof lsSchema>;

export interface LsToolDetails {
	/** The entry limit, present when the directory has more entries than were shown. */
	entryLimitReached?: number;
	truncation?: TruncationResult;
}

/** Lists one directory, ignore files notwithstanding. */
export function createLsTool(options: ToolOptions): AgentTool<typeof lsSchema, LsToolDetails> {
	return {
		name: "ls",
		readOnly: true,
		label: "ls",
		description: [
			"List directory contents, sorted alphabetically (case-insensitive), with '/' after directories.",
			`Includes hidden files. Output is limited to ${DEFAULT_LIMIT} entries or ${formatSize(DEFAULT_MAX_BYTES)}`,
			"(whichever is hit first).",
		].join(" "),
		parameters: lsSchema,
		execute: (_toolCallId, args, signal) => runLs(options, args, signal),
	};
}

async function runLs(
	options: ToolOptions,
	args: LsToolInput,
	signal: AbortSignal,
): Promise<AgentToolResult<LsToolDetails>> {
	signal.throwIfAborted();
	const limit = wholeNumber(args.limit, DEFAULT_LIMIT, 1);
	const directory = resolveToolPath(args.path ?? ".", options.cwd);
	checkToolRead(options, directory);
	if (!(await statToolPath(directory)).isDirectory()) throw new Error(`Not a directory: ${directory}`);
	const entries = await fsPromises().readdir(directory, { withFileTypes: true });
	entries.sort((left, right) => compareNames(left.name, right.name));

	const shown: string[] = [];
	for (const entry of entries.slice(0, limit)) {
		const suffix = (await isDirectoryEntry(entry, join(directory, entry.name))) ? "/" : "";
		shown.push(entry.name + suffix);
	}
	if (shown.length === 0) return { content: [{ type: "text", text: "(empty directory)" }], details: {} };

	const truncation = truncateHead(shown.join("\n"), { maxLines: Number.MAX_SAFE_INTEGER });
	const details: LsToolDetails = {};
	const notices: string[] = [];
	if (entries.length > limit) {
		details.entryLimitReached = limit;
		notices.push(`${limit} entries limit reached. Use limit=${limit * 2} for more`);
	}
	if (truncation.truncated) {
		details.truncation = truncation;
		notices.push(`${formatSize(DEFAULT_MAX_BYTES)} limit reached`);
	}
	return { content: [{ type: "text", text: withNotices(truncation.content, notices) }], details };
}

/** Directories and symlinks to directories get the `/` suffix; a broken link is listed as a plain name. */
async function isDirectoryEntry(entry: Dirent, path: string): Promise<boolean> {
	if (entry.isDirectory()) return true;
	if (!entry.isSymbolicLink()) return false;
	const target = await fsPromises()
		.stat(path)
		.catch((error: unknown) => {
			if (isFileSystemError(error)) return undefined;
			throw error;
		});
	return target?.isDirectory() === true;
}
