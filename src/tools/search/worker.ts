/**
 * The search worker's entry point (built as dist/search-worker.js). It runs grep and find jobs off
 * the main thread, so that a backtracking pattern or a huge tree cannot stall the process: the
 * main thread terminates the worker on abort or when the time limit is reached. A job runs
 * synchronously from start to end; its lines are posted file by file. Started as a scan helper of
 * another search worker (scan-helpers.ts), the same script scans the batches it is given.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { MessagePort, parentPort, workerData } from "node:worker_threads";
import { IgnoreFile } from "./gitignore-pattern.js";
import { runSearchJob } from "./jobs.js";
import { isSearchRequest, type SearchReply } from "./protocol.js";
import { runScanHelper } from "./scan-helper-main.js";
import { ScanHelpers } from "./scan-helpers.js";

const data: unknown = workerData;
const role = typeof data === "object" && data !== null && "role" in data ? data.role : undefined;

if (role === "scan-helper") {
	if (
		typeof data !== "object" ||
		data === null ||
		!("port" in data && data.port instanceof MessagePort) ||
		!("shared" in data && data.shared instanceof Int32Array)
	) {
		throw new Error("A scan helper needs its port and shared counters");
	}
	runScanHelper({ role: "scan-helper", port: data.port, shared: data.shared });
} else {
	const port = parentPort;
	if (!port) throw new Error("search-worker.js runs as a worker thread only");
	const script =
		typeof data === "object" && data !== null && "script" in data && typeof data.script === "string"
			? data.script
			: undefined;
	// The helpers start with the worker, so that they are up by the first search.
	if (script !== undefined) ScanHelpers.of(script);
	// Jobs run one after another: the main thread posts the next one only after the previous answered.
	port.on("message", (message: unknown) => {
		if (!isSearchRequest(message)) {
			process.emitWarning("The search worker received a message that is not a search job");
			return;
		}
		const { id } = message;
		const post = (reply: SearchReply) => port.postMessage(reply);
		try {
			if ("warmUp" in message) {
				if (script !== undefined) warmUpRound(message.warmUp, warmUpFolder(script), script);
				post({ id, type: "done", summary: { limitReached: false, linesTruncated: false } });
				return;
			}
			const summary = runSearchJob(message.job, (lines) => post({ id, type: "lines", lines }), script);
			post({ id, type: "done", summary });
		} catch (error) {
			post({ id, type: "error", message: error instanceof Error ? error.message : String(error) });
		}
	});
}

/**
 * Where the warm-up searches run: the package's type declarations, many small files like a source
 * tree's (the folder of the worker's script when it has none).
 */
function warmUpFolder(script: string): string {
	const types = join(dirname(script), "types");
	return existsSync(types) ? types : dirname(script);
}

/** Searches of the package's own files that warm the worker's code up (they find nothing). */
const WARM_UP_JOBS = [
	{ pattern: "no such text anywhere", literal: true },
	{ pattern: "no\\s+such\\w*pattern" },
	{ pattern: "No Such Text", ignoreCase: true, context: 1 },
	{ pattern: "[xyz]{40}", glob: "*.js" },
];

/**
 * One round of warming the worker's code up, asked for by the idle preload (a round at a time,
 * while the agent is idle): searches of the worker's own folder, so that the first real search
 * runs code that has run and been optimised, as later ones do, instead of paying for that itself.
 * Round 0 also runs the ignore rules on paths like a repository's (the folder has none).
 */
function warmUpRound(round: number, folder: string, script: string): void {
	if (round === 0) warmUpIgnoreRules();
	for (const args of WARM_UP_JOBS)
		runSearchJob({ kind: "grep", cwd: folder, args, defaultLimit: 100 }, () => undefined, script);
	runSearchJob({ kind: "find", cwd: folder, args: { pattern: "*.none" }, defaultLimit: 100 }, () => undefined);
}

/** Ignore rules as a repository's would be, tested on paths like a tree's (the worker's folder has none). */
function warmUpIgnoreRules(): void {
	const rules = IgnoreFile.parse("node_modules/\n*.log\n!keep.log\n/build\npackages/*/lib\n**/tmp/**\n.cache\n", false);
	const names = ["index.ts", "keep.log", "node_modules", "lib", "README.md", "a.log", "tmp", "x.json"];
	for (let round = 0; round < 400; round++) {
		for (const name of names) rules.verdict(`packages/p${round % 7}/src/${name}`, name, name.indexOf(".") === -1);
	}
}
