import type { Static } from "typebox";
import type { AgentTool, AgentToolResult } from "../agent/types.js";
import { Type } from "../llm/schema-builders.js";
import { resolveToolPath } from "./paths.js";
import { compileGlob, statToolPath, wholeNumber, withNotices } from "./search-support.js";
import { DEFAULT_MAX_BYTES, formatSize, type TruncationResult, truncateHead } from "./truncate.js";
import type { ToolOptions } from "./types.js";
import { walk } from "./walk.js";

const DEFAULT_LIMIT = 1000;

const findSchema = Type.Object({
	pattern: Type.String({
		description: "Glob pattern to match files and directories, e.g. '*.ts', '**/*.json' or 'src/**/*.spec.ts'",
	}),
	path: Type.Optional(Type.String({ description: "Directory to search in (default: current directory)" })),
	limit: Type.Optional(Type.Number({ description: `Maximum number of results (default: ${DEFAULT_LIMIT})` })),
});

export type FindToolInput = Static<typeof findSchema>;

export interface FindToolDetails {
	/** The result limit, present when more paths match than were shown. */
	resultLimitReached?: number;
	truncation?: TruncationResult;
}

/** Finds paths by glob, in Node (no fd binary), honouring ignore files. */
export function createFindTool(options: ToolOptions): AgentTool<typeof findSchema, FindToolDetails> {
	return {
		name: "find",
		readOnly: true,
		label: "find",
		description: [
			"Search for files by glob pattern. Returns paths relative to the search directory, sorted;",
			"directories end with '/'. A pattern without '/' matches file names at any depth.",
			"Respects .gitignore and .ignore; includes hidden files.",
			`Output is limited to ${DEFAULT_LIMIT} results or ${formatSize(DEFAULT_MAX_BYTES)} (whichever is hit first).`,
		].join(" "),
		parameters: findSchema,
		execute: (_toolCallId, args, signal) => runFind(options.cwd, args, signal),
	};
}

async function runFind(
	cwd: string,
	args: FindToolInput,
	signal: AbortSignal,
): Promise<AgentToolResult<FindToolDetails>> {
	const limit = wholeNumber(args.limit, DEFAULT_LIMIT, 1);
	const root = resolveToolPath(args.path ?? ".", cwd);
	if (!(await statToolPath(root)).isDirectory()) throw new Error(`Not a directory: ${root}`);
	// A trailing slash asks for directories only, as in gitignore patterns.
	const directoriesOnly = args.pattern.length > 1 && args.pattern.endsWith("/");
	const matches = await compileGlob(directoriesOnly ? args.pattern.slice(0, -1) : args.pattern);

	// The walk yields paths in sorted order, so the first `limit` matches are the first sorted ones.
	const results: string[] = [];
	let limitReached = false;
	for await (const entry of walk(root, { signal, includeDirectories: true })) {
		if (directoriesOnly && !entry.isDirectory) continue;
		if (!matches(entry.path)) continue;
		if (results.length >= limit) {
			limitReached = true;
			break;
		}
		results.push(entry.isDirectory ? `${entry.path}/` : entry.path);
	}

	if (results.length === 0) {
		return { content: [{ type: "text", text: "No files found matching pattern" }], details: {} };
	}
	const truncation = truncateHead(results.join("\n"), { maxLines: Number.MAX_SAFE_INTEGER });
	const details: FindToolDetails = {};
	const notices: string[] = [];
	if (limitReached) {
		details.resultLimitReached = limit;
		notices.push(`${limit} results limit reached. Use limit=${limit * 2} for more, or refine pattern`);
	}
	if (truncation.truncated) {
		details.truncation = truncation;
		notices.push(`${formatSize(DEFAULT_MAX_BYTES)} limit reached`);
	}
	return { content: [{ type: "text", text: withNotices(truncation.content, notices) }], details };
}
