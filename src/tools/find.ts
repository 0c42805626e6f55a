import type { Static } from "typebox";
import type { AgentTool, AgentToolResult } from "../agent/types.js";
import { Type } from "../llm/schema-builders.js";
import { sandboxedSearch } from "./sandbox-paths.js";
import { runSearch, SEARCH_TIME_LIMIT_MS } from "./search/runner.js";
import {
	foldersCutNotice,
	seconds,
	timeLimitNotice,
	unreadableNotice,
	wholeNumber,
	withNotices,
} from "./search-support.js";
import { DEFAULT_MAX_BYTES, formatSize, type TruncationResult, truncateHead } from "./truncate.js";
import type { SearchToolOptions } from "./types.js";

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
	/** The time limit (seconds) that stopped the search: the paths shown are those found until then. */
	timeLimitReached?: number;
}

export type FindToolOptions = SearchToolOptions;

/** Finds paths by glob, in Node (no fd binary), honouring ignore files. */
export function createFindTool(options: FindToolOptions): AgentTool<typeof findSchema, FindToolDetails> {
	return {
		name: "find",
		readOnly: true,
		label: "find",
		description: [
			"Search for files by glob pattern. Returns paths relative to the search directory, sorted;",
			"directories end with '/'. A pattern without '/' matches file names at any depth.",
			"Respects .gitignore (in git repositories), .ignore and git's excludes; includes hidden files.",
			`Output is limited to ${DEFAULT_LIMIT} results or ${formatSize(DEFAULT_MAX_BYTES)} (whichever is hit first).`,
			`A search stops after ${seconds(options.searchTimeLimitMs ?? SEARCH_TIME_LIMIT_MS)} s with what it found by then.`,
		].join(" "),
		parameters: findSchema,
		execute: (_toolCallId, args, signal) => runFind(options, args, signal),
	};
}

async function runFind(
	options: FindToolOptions,
	args: FindToolInput,
	signal: AbortSignal,
): Promise<AgentToolResult<FindToolDetails>> {
	const limit = wholeNumber(args.limit, DEFAULT_LIMIT, 1);
	const hidden = sandboxedSearch(options, args.path);
	const job = { kind: "find" as const, cwd: options.cwd, args: { ...args, hidden }, defaultLimit: DEFAULT_LIMIT };
	const outcome = await runSearch(job, { signal, timeLimitMs: options.searchTimeLimitMs });
	const results = outcome.lines;
	const details: FindToolDetails = {};
	const notices: string[] = [];
	if (outcome.timeLimitReached) {
		details.timeLimitReached = seconds(options.searchTimeLimitMs ?? SEARCH_TIME_LIMIT_MS);
		notices.push(timeLimitNotice(details.timeLimitReached));
	}
	if (outcome.summary.foldersCut) notices.push(foldersCutNotice(outcome.summary.foldersCut));
	const { unreadable, unreadableCount } = outcome.summary;
	if (unreadable) notices.push(unreadableNotice(unreadableCount ?? unreadable.length, unreadable));
	if (results.length === 0) {
		return { content: [{ type: "text", text: withNotices("No files found matching pattern", notices) }], details };
	}
	const truncation = truncateHead(results.join("\n"), { maxLines: Number.MAX_SAFE_INTEGER });
	if (outcome.summary.limitReached) {
		details.resultLimitReached = limit;
		notices.push(`${limit} results limit reached. Use limit=${limit * 2} for more, or refine pattern`);
	}
	if (truncation.truncated) {
		details.truncation = truncation;
		notices.push(`${formatSize(DEFAULT_MAX_BYTES)} limit reached`);
	}
	return { content: [{ type: "text", text: withNotices(truncation.content, notices) }], details };
}
