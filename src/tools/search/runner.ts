import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Worker } from "node:worker_threads";
import { workerThreadsModule } from "../../platform/lazy-builtins.js";
import type { SearchJob, SearchSummary } from "./jobs.js";
import { isSearchReply, type SearchReply } from "./protocol.js";

/** How long one grep or find may run before it is stopped and its partial results returned. */
export const SEARCH_TIME_LIMIT_MS = 30_000;
/**
 * Idle workers kept for the next search. They are kept for good (unreferenced, they never hold the
 * process open): a model that thinks for minutes between two searches must not pay for a new
 * worker and its cold code each time. A second one serves a search started while one runs.
 */
const IDLE_WORKERS = 2;
/** A search worker's heap: files are read in chunks, so this bounds only its output and long lines. */
const WORKER_HEAP_MB = 512;

export interface SearchRunOptions {
	/** Stops the search at once (the worker is terminated); the run then rejects with the reason. */
	signal: AbortSignal;
	/** Default SEARCH_TIME_LIMIT_MS. */
	timeLimitMs?: number;
}

export interface SearchOutcome {
	/** The output lines, in the order found. */
	lines: string[];
	summary: SearchSummary;
	/** The time limit stopped the search: `lines` are what was found until then. */
	timeLimitReached: boolean;
}

const idle: Worker[] = [];
let nextJobId = 1;
let workerFile: string | undefined;

/**
 * Runs a search job in a worker thread, so that nothing the model controls (a backtracking regex,
 * a glob, ignore files, the size of the tree) can block this thread. The worker is terminated on
 * abort and at the time limit; lines found before then are kept.
 */
export function runSearch(job: SearchJob, options: SearchRunOptions): Promise<SearchOutcome> {
	const { signal } = options;
	signal.throwIfAborted();
	const worker = acquireWorker();
	const id = nextJobId++;
	const lines: string[] = [];
	return new Promise<SearchOutcome>((resolve, reject) => {
		let settled = false;
		const finish = (keepWorker: boolean, outcome: () => void): void => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			signal.removeEventListener("abort", onAbort);
			worker.off("message", onMessage);
			worker.off("error", onError);
			worker.off("exit", onExit);
			if (keepWorker) releaseWorker(worker);
			else stopWorker(worker);
			outcome();
		};
		const onMessage = (message: unknown): void => {
			if (!isSearchReply(message) || message.id !== id) return;
			handleReply(message);
		};
		const handleReply = (reply: SearchReply): void => {
			if (reply.type === "lines") for (const line of reply.lines) lines.push(line);
			else if (reply.type === "done") {
				finish(true, () => resolve({ lines, summary: reply.summary, timeLimitReached: false }));
			} else finish(true, () => reject(new Error(reply.message)));
		};
		const onError = (error: Error): void => {
			finish(false, () => reject(new Error(`The search failed: ${error.message}`, { cause: error })));
		};
		const onExit = (code: number): void => {
			finish(false, () => reject(new Error(`The search worker stopped unexpectedly (exit code ${code})`)));
		};
		const onAbort = (): void => finish(false, () => reject(signal.reason));
		const timer = setTimeout(
			() =>
				finish(false, () =>
					resolve({ lines, summary: { limitReached: false, linesTruncated: false }, timeLimitReached: true }),
				),
			options.timeLimitMs ?? SEARCH_TIME_LIMIT_MS,
		);
		worker.on("message", onMessage);
		worker.on("error", onError);
		worker.on("exit", onExit);
		signal.addEventListener("abort", onAbort, { once: true });
		worker.postMessage({ id, job });
	});
}

/**
 * Starts a search worker ahead of the first search (the idle preload), unless one waits already:
 * the first search then finds its thread running and its code loaded. Resolves once it is up.
 */
export function prestartSearchWorker(): Promise<void> {
	if (idle.length > 0) return Promise.resolve();
	const worker = startWorker();
	worker.unref();
	idle.push(worker);
	return new Promise((resolve, reject) => {
		worker.once("online", () => resolve());
		worker.once("error", reject);
	});
}

/**
 * Runs one round of warming up the waiting search worker (worker.ts); resolves when it is done.
 * Does nothing when no worker waits (a search holds it, or none was started).
 */
export function warmUpSearchWorker(round: number): Promise<void> {
	const worker = idle.pop();
	if (!worker) return Promise.resolve();
	worker.ref();
	const id = nextJobId++;
	return new Promise((resolve, reject) => {
		const onMessage = (message: unknown) => {
			if (!isSearchReply(message) || message.id !== id) return;
			settle();
			if (message.type === "error") reject(new Error(message.message));
			else resolve();
		};
		const onExit = (code: number) => {
			settle();
			reject(new Error(`The search worker stopped (exit code ${code})`));
		};
		const settle = () => {
			worker.off("message", onMessage);
			worker.off("exit", onExit);
			releaseWorker(worker);
		};
		worker.on("message", onMessage);
		worker.once("exit", onExit);
		worker.postMessage({ id, warmUp: round });
	});
}

function acquireWorker(): Worker {
	const kept = idle.pop();
	if (kept) {
		kept.ref();
		return kept;
	}
	return startWorker();
}

function startWorker(): Worker {
	const script = searchWorkerFile();
	const worker = new (workerThreadsModule().Worker)(script, {
		// The script starts its scan helpers with it (scan-helpers.ts).
		workerData: { role: "search", script },
		resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
		// The worker's stdout would otherwise reach this process's stdout (the RPC channel).
		stdout: true,
	});
	worker.stdout.on("data", (chunk: Buffer) => process.stderr.write(chunk));
	// A worker that ends while it waits (it should not) leaves the pool.
	worker.once("exit", () => {
		const index = idle.indexOf(worker);
		if (index >= 0) idle.splice(index, 1);
	});
	return worker;
}

/** Keeps a worker that answered for the next search (unreferenced: it never holds the process open). */
function releaseWorker(worker: Worker): void {
	if (idle.length >= IDLE_WORKERS) {
		stopWorker(worker);
		return;
	}
	worker.unref();
	idle.push(worker);
}

function stopWorker(worker: Worker): void {
	worker.terminate().catch((error: unknown) => {
		process.emitWarning(`Could not stop a search worker: ${error instanceof Error ? error.message : String(error)}`);
	});
}

/**
 * dist/search-worker.js of the package this module belongs to, found by walking up to its
 * package.json: from the bundle (dist/ or dist/chunks/) and from the sources (src/tools/search/) alike.
 */
function searchWorkerFile(): string {
	if (workerFile) return workerFile;
	const start = dirname(fileURLToPath(import.meta.url));
	for (let directory = start; ; directory = dirname(directory)) {
		const manifest = join(directory, "package.json");
		if (existsSync(manifest) && isAtomicManifest(manifest)) {
			workerFile = join(directory, "dist", "search-worker.js");
			return workerFile;
		}
		if (dirname(directory) === directory) throw new Error(`Cannot find the search worker above ${start}`);
	}
}

function isAtomicManifest(manifest: string): boolean {
	try {
		const parsed: unknown = JSON.parse(readFileSync(manifest, "utf8"));
		return typeof parsed === "object" && parsed !== null && "name" in parsed && parsed.name === "atomic-agent";
	} catch (error) {
		// An unreadable or invalid package.json belongs to some other package: keep walking up.
		if (error instanceof SyntaxError || (error instanceof Error && "code" in error)) return false;
		throw error;
	}
}
