import { findJob } from "./find-job.js";
import { grepJob } from "./grep-job.js";
import type { SearchJob, SearchSummary } from "./types.js";

export type { FindJobArguments, GrepJobArguments, SearchJob, SearchSummary } from "./types.js";

/**
 * Runs a search, handing output lines to `emit` as they are known (each file's lines at once), so
 * that whoever stops the search early keeps what was found. Throws for a missing path, an invalid
 * pattern or glob. Synchronous: it runs in a search worker. `helperScript`, the worker's own
 * script, lets grep start scan helpers (scan-helpers.ts).
 */
export function runSearchJob(job: SearchJob, emit: (lines: string[]) => void, helperScript?: string): SearchSummary {
	return job.kind === "grep"
		? grepJob(job.cwd, job.args, job.defaultLimit, emit, helperScript)
		: findJob(job.cwd, job.args, job.defaultLimit, emit);
}
