import type { Static } from "typebox";
import type { AgentTool, AgentToolResult } from "../agent/types.js";
import { Type } from "../llm/schema-builders.js";
import { sandboxedSearch } from "./sandbox-paths.js";
import { MAX_LINE_BYTES } from "./search/file-scan.js";
import { runSearch, SEARCH_TIME_LIMIT_MS } from "./search/runner.js";
import {
	foldersCutNotice,
	seconds,
	timeLimitNotice,
	unreadableNotice,
	wholeNumber,
	withNotices,
} from "./search-support.js";
import { DEFAULT_MAX_BYTES, formatSize, GREP_MAX_LINE_CHARS, type TruncationResult, truncateHead } from "./truncate.js";
import type { SearchToolOptions } from "./types.js";

const DEFAULT_LIMIT = 100;

const grepSchema = Type.Object({
	pattern: Type.String({
		description: "Regular expression to search for (JavaScript syntax), or text with literal=true",
	}),
	path: Type.Optional(Type.String({ description: "Directory or file to search (default: current directory)" })),
	glob: Type.Optional(
		Type.String({ description: "Only search files matching this glob, e.g. '*.ts' or 'src/**/*.test.ts'" }),
	),
	ignoreCase: Type.Optional(Type.Boolean({ description: "Case-insensitive search (default: false)" })),
	literal: Type.Optional(
		Type.Boolean({ description: "Treat pattern as literal text instead of a regex (default: false)" }),
	),
	context: Type.Optional(Type.Number({ description: "Lines to show before and after each match (default: 0)" })),
	limit: Type.Optional(Type.Number({ description: `Maximum number of matches to return (default: ${DEFAULT_LIMIT})` })),
});

export type GrepToolInput = Static<typeof grepSchema>;

export interface GrepToolDetails {
	/** Binary files whose unshown part matched: how many, and the first few. */
	binaryMatches?: { count: number; files: string[] };
	/** The match limit, present when more matches exist than were shown. */
	matchLimitReached?: number;
	truncation?: TruncationResult;
	linesTruncated?: boolean;
	/** The time limit (seconds) that stopped the search: the matches shown are those found until then. */
	timeLimitReached?: number;
}

export type GrepToolOptions = SearchToolOptions;

/** Searches file contents with a regex, in a search worker (no ripgrep binary), honouring ignore files. */
export function createGrepTool(options: GrepToolOptions): AgentTool<typeof grepSchema, GrepToolDetails> {
	return {
		name: "grep",
		readOnly: true,
		label: "grep",
		description: [
			"Search file contents for a regex pattern. Returns matching lines with file paths and line numbers.",
			"Respects .gitignore (in git repositories), .ignore and git's excludes; includes hidden files; skips binary",
			`files (with a NUL byte). Output is limited to ${DEFAULT_LIMIT} matches or`,
			`${formatSize(DEFAULT_MAX_BYTES)} (whichever is hit first); lines are cut at ${GREP_MAX_LINE_CHARS} chars.`,
			`A search stops after ${seconds(options.searchTimeLimitMs ?? SEARCH_TIME_LIMIT_MS)} s with what it found by then.`,
		].join(" "),
		parameters: grepSchema,
		execute: (_toolCallId, args, signal) => runGrep(options, args, signal),
	};
}

async function runGrep(
	options: GrepToolOptions,
	args: GrepToolInput,
	signal: AbortSignal,
): Promise<AgentToolResult<GrepToolDetails>> {
	const limit = wholeNumber(args.limit, DEFAULT_LIMIT, 1);
	const hidden = sandboxedSearch(options, args.path);
	const job = { kind: "grep" as const, cwd: options.cwd, args: { ...args, hidden }, defaultLimit: DEFAULT_LIMIT };
	const outcome = await runSearch(job, { signal, timeLimitMs: options.searchTimeLimitMs });
	const { lines, summary } = outcome;
	const details: GrepToolDetails = {};
	const notices: string[] = [];
	if (outcome.timeLimitReached) {
		details.timeLimitReached = seconds(options.searchTimeLimitMs ?? SEARCH_TIME_LIMIT_MS);
		notices.push(timeLimitNotice(details.timeLimitReached));
	}
	if (summary.binaryMatches && summary.binaryMatches.length > 0) {
		const count = summary.binaryMatchCount ?? summary.binaryMatches.length;
		details.binaryMatches = { count, files: summary.binaryMatches };
		notices.push(binaryNotice(count, summary.binaryMatches));
	}
	if (summary.longLines) {
		notices.push(
			`A line over ${formatSize(MAX_LINE_BYTES)} was searched in its first ${formatSize(MAX_LINE_BYTES)} only`,
		);
	}
	if (summary.foldersCut) notices.push(foldersCutNotice(summary.foldersCut));
	if (summary.unreadable)
		notices.push(unreadableNotice(summary.unreadableCount ?? summary.unreadable.length, summary.unreadable));
	if (lines.length === 0)
		return { content: [{ type: "text", text: withNotices("No matches found", notices) }], details };
	const truncation = truncateHead(lines.join("\n"), { maxLines: Number.MAX_SAFE_INTEGER });
	if (summary.limitReached) {
		details.matchLimitReached = limit;
		notices.push(`${limit} matches limit reached. Use limit=${limit * 2} for more, or refine pattern`);
	}
	if (truncation.truncated) {
		details.truncation = truncation;
		notices.push(`${formatSize(DEFAULT_MAX_BYTES)} limit reached`);
	}
	if (summary.linesTruncated) {
		details.linesTruncated = true;
		notices.push(`Some lines truncated to ${GREP_MAX_LINE_CHARS} chars. Use the read tool to see full lines`);
	}
	return { content: [{ type: "text", text: withNotices(truncation.content, notices) }], details };
}

/** Binary files are not shown (as ripgrep does), but a match in them is said. */
function binaryNotice(count: number, files: readonly string[]): string {
	const named = files.join(", ");
	const more = count > files.length ? ` and ${count - files.length} more` : "";
	const which = count === 1 ? `binary file ${named} matches` : `${count} binary files match (${named}${more})`;
	return `The ${which}; binary files (with a NUL byte) are not shown. Use bash (e.g. grep -a) to see inside one`;
}
