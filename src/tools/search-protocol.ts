import type { SearchJob, SearchSummary } from "./search-jobs.js";

/** What the main thread posts to a search worker: one job at a time. */
export interface SearchRequest {
	id: number;
	job: SearchJob;
}

/** What a search worker posts back: lines as they are found, then exactly one `done` or `error`. */
export type SearchReply =
	| { id: number; type: "line"; text: string }
	| { id: number; type: "done"; summary: SearchSummary }
	| { id: number; type: "error"; message: string };

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null;
}

/** Checks a message from a search worker (our own code, but a message is still checked, not cast). */
export function isSearchReply(value: unknown): value is SearchReply {
	if (!isRecord(value) || typeof value.id !== "number") return false;
	if (value.type === "line") return typeof value.text === "string";
	if (value.type === "error") return typeof value.message === "string";
	if (value.type !== "done" || !isRecord(value.summary)) return false;
	return typeof value.summary.limitReached === "boolean" && typeof value.summary.linesTruncated === "boolean";
}

/** Checks a job posted to a search worker. */
export function isSearchRequest(value: unknown): value is SearchRequest {
	if (!isRecord(value) || typeof value.id !== "number" || !isRecord(value.job)) return false;
	const { job } = value;
	return (
		(job.kind === "grep" || job.kind === "find") &&
		typeof job.cwd === "string" &&
		typeof job.defaultLimit === "number" &&
		isRecord(job.args) &&
		typeof job.args.pattern === "string"
	);
}
