import { basename } from "node:path";
import type { Static } from "typebox";
import type { AgentTool, AgentToolResult } from "../agent/types.js";
import { Type } from "../llm/schema-builders.js";
import { GrepSearch, MAX_SEARCH_FILE_BYTES } from "./grep-search.js";
import { resolveToolPath } from "./paths.js";
import { compileGlob, isFileSystemError, statToolPath, wholeNumber, withNotices } from "./search-support.js";
import { DEFAULT_MAX_BYTES, formatSize, GREP_MAX_LINE_CHARS, type TruncationResult, truncateHead } from "./truncate.js";
import type { ToolOptions } from "./types.js";
import { walk } from "./walk.js";

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
	/** The match limit, present when more matches exist than were shown. */
	matchLimitReached?: number;
	truncation?: TruncationResult;
	linesTruncated?: boolean;
}

/** Searches file contents with a regex, in Node (no ripgrep binary), honouring ignore files. */
export function createGrepTool(options: ToolOptions): AgentTool<typeof grepSchema, GrepToolDetails> {
	return {
		name: "grep",
		readOnly: true,
		label: "grep",
		description: [
			"Search file contents for a regex pattern. Returns matching lines with file paths and line numbers.",
			"Respects .gitignore and .ignore; includes hidden files; skips binary files and files over",
			`${formatSize(MAX_SEARCH_FILE_BYTES)}. Output is limited to ${DEFAULT_LIMIT} matches or`,
			`${formatSize(DEFAULT_MAX_BYTES)} (whichever is hit first); lines are cut at ${GREP_MAX_LINE_CHARS} chars.`,
		].join(" "),
		parameters: grepSchema,
		execute: (_toolCallId, args, signal) => runGrep(options.cwd, args, signal),
	};
}

async function runGrep(
	cwd: string,
	args: GrepToolInput,
	signal: AbortSignal,
): Promise<AgentToolResult<GrepToolDetails>> {
	const regex = compileRegex(args.pattern, args.ignoreCase === true, args.literal === true);
	const limit = wholeNumber(args.limit, DEFAULT_LIMIT, 1);
	const searchPath = resolveToolPath(args.path ?? ".", cwd);
	const info = await statToolPath(searchPath);
	const search = new GrepSearch({ regex, context: wholeNumber(args.context, 0, 0), limit, signal });

	if (info.isDirectory()) {
		const matchesGlob = args.glob ? await compileGlob(args.glob) : undefined;
		for await (const entry of walk(searchPath, { signal })) {
			if (matchesGlob && !matchesGlob(entry.path)) continue;
			await search.searchFile(entry.absolutePath, entry.path).catch((error: unknown) => {
				// A file that vanished or cannot be read mid-walk is skipped, as ripgrep does.
				if (!isFileSystemError(error)) throw error;
			});
			if (search.done) break;
		}
	} else {
		await search.searchFile(searchPath, basename(searchPath));
	}

	if (search.lines.length === 0) return { content: [{ type: "text", text: "No matches found" }], details: {} };
	const truncation = truncateHead(search.lines.join("\n"), { maxLines: Number.MAX_SAFE_INTEGER });
	const details: GrepToolDetails = {};
	const notices: string[] = [];
	if (search.matchLimitReached) {
		details.matchLimitReached = limit;
		notices.push(`${limit} matches limit reached. Use limit=${limit * 2} for more, or refine pattern`);
	}
	if (truncation.truncated) {
		details.truncation = truncation;
		notices.push(`${formatSize(DEFAULT_MAX_BYTES)} limit reached`);
	}
	if (search.linesTruncated) {
		details.linesTruncated = true;
		notices.push(`Some lines truncated to ${GREP_MAX_LINE_CHARS} chars. Use the read tool to see full lines`);
	}
	return { content: [{ type: "text", text: withNotices(truncation.content, notices) }], details };
}

/**
 * Builds the search regex. A leading `(?i)`, ripgrep's inline flag that models often write, is
 * turned into the `i` flag since JavaScript has no equivalent.
 */
export function compileRegex(pattern: string, ignoreCase: boolean, literal: boolean): RegExp {
	let source = literal ? pattern.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&") : pattern;
	let flags = ignoreCase ? "i" : "";
	if (!literal && source.startsWith("(?i)")) {
		source = source.slice(4);
		flags = "i";
	}
	try {
		return new RegExp(source, flags);
	} catch (error) {
		// The engine's message repeats the pattern as /.../; keep only its reason.
		const reason = error instanceof Error ? (error.message.split(": ").pop() ?? error.message) : String(error);
		throw new Error(`Invalid regex pattern "${pattern}": ${reason}. Use literal=true to search for the text as is`, {
			cause: error,
		});
	}
}
