import type { SearchJob, SearchSummary } from "./jobs.js";

/**
 * What the main thread posts to a search worker, one at a time: a job, or a round of warming its
 * code up (worker.ts), which it answers with `done` when finished.
 */
export type SearchRequest = { id: number; job: SearchJob } | { id: number; warmUp: number };

/** What a search worker posts back: lines as they are found, then exactly one `done` or `error`. */
export type SearchReply =
	| { id: number; type: "lines"; lines: string[] }
	| { id: number; type: "done"; summary: SearchSummary }
	| { id: number; type: "error"; message: string };

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null;
}

const isStringArray = (value: unknown): value is string[] =>
	Array.isArray(value) && value.every((item) => typeof item === "string");

/** Checks a message from a search worker (our own code, but a message is still checked, not cast). */
export function isSearchReply(value: unknown): value is SearchReply {
	if (!isRecord(value) || typeof value.id !== "number") return false;
	if (value.type === "lines") return isStringArray(value.lines);
	if (value.type === "error") return typeof value.message === "string";
	if (value.type !== "done" || !isRecord(value.summary)) return false;
	const { summary } = value;
	return (
		typeof summary.limitReached === "boolean" &&
		typeof summary.linesTruncated === "boolean" &&
		(summary.binaryMatches === undefined || isStringArray(summary.binaryMatches)) &&
		(summary.binaryMatchCount === undefined || typeof summary.binaryMatchCount === "number") &&
		(summary.longLines === undefined || typeof summary.longLines === "boolean") &&
		(summary.foldersCut === undefined || isStringArray(summary.foldersCut)) &&
		(summary.unreadable === undefined || isStringArray(summary.unreadable)) &&
		(summary.unreadableCount === undefined || typeof summary.unreadableCount === "number")
	);
}

/** Checks a job posted to a search worker. */
export function isSearchRequest(value: unknown): value is SearchRequest {
	if (!isRecord(value) || typeof value.id !== "number") return false;
	if (typeof value.warmUp === "number") return true;
	if (!isRecord(value.job)) return false;
	const { job } = value;
	return (
		(job.kind === "grep" || job.kind === "find") &&
		typeof job.cwd === "string" &&
		typeof job.defaultLimit === "number" &&
		isRecord(job.args) &&
		typeof job.args.pattern === "string"
	);
}
