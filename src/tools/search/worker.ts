/**
 * The search worker's entry point (built as dist/search-worker.js). It runs grep and find jobs off
 * the main thread, so that a backtracking pattern or a huge tree cannot stall the process: the
 * main thread terminates the worker on abort or when the time limit is reached. A job runs
 * synchronously from start to end; its lines are posted file by file. Started as a scan helper of
 * another search worker (scan-helpers.ts), the same script scans the batches it is given.
 */
import { dirname } from "node:path";
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
	// The helpers start with the worker, so that they are up and warm by the first search.
	if (script !== undefined) {
		ScanHelpers.of(script);
		warmUp(dirname(script), script);
	}
	// Jobs run one after another: the main thread posts the next one only after the previous answered.
	port.on("message", (message: unknown) => {
		if (!isSearchRequest(message)) {
			process.emitWarning("The search worker received a message that is not a search job");
			return;
		}
		const { id, job } = message;
		const post = (reply: SearchReply) => port.postMessage(reply);
		try {
			const summary = runSearchJob(job, (lines) => post({ id, type: "lines", lines }), script);
			post({ id, type: "done", summary });
		} catch (error) {
			post({ id, type: "error", message: error instanceof Error ? error.message : String(error) });
		}
	});
}

/** Searches run on the worker's own folder while it waits for its first job. */
const WARM_UP_JOBS = [
	{ pattern: "no such text anywhere", literal: true },
	{ pattern: "no\\s+such\\w*pattern" },
	{ pattern: "No Such Text", ignoreCase: true, context: 1 },
	{ pattern: "[xyz]{40}", glob: "*.js" },
];
const WARM_UP_ROUNDS = 12;

/**
 * Runs a few searches of the worker's own folder (its script's; they find nothing) while it waits
 * for its first job, one at a time between turns of its event loop: the first real search then
 * runs code that has run and been optimised, as later ones do, instead of paying for that itself.
 * A job that arrives meanwhile waits for at most one of them.
 */
function warmUp(folder: string, script: string): void {
	warmUpIgnoreRules();
	let round = 0;
	const next = () => {
		const args = WARM_UP_JOBS[round % WARM_UP_JOBS.length];
		if (!args || round >= WARM_UP_ROUNDS * WARM_UP_JOBS.length) return;
		round++;
		try {
			runSearchJob({ kind: "grep", cwd: folder, args, defaultLimit: 100 }, () => undefined, script);
			runSearchJob({ kind: "find", cwd: folder, args: { pattern: "*.none" }, defaultLimit: 100 }, () => undefined);
		} catch (error) {
			// A folder that cannot be searched only means no warm-up.
			process.emitWarning(`Search warm-up stopped: ${error instanceof Error ? error.message : String(error)}`);
			return;
		}
		setImmediate(next).unref();
	};
	setImmediate(next).unref();
}

/** Ignore rules as a repository's would be, tested on paths like a tree's (the worker's folder has none). */
function warmUpIgnoreRules(): void {
	const rules = IgnoreFile.parse("node_modules/\n*.log\n!keep.log\n/build\npackages/*/lib\n**/tmp/**\n.cache\n", false);
	const names = ["index.ts", "keep.log", "node_modules", "lib", "README.md", "a.log", "tmp", "x.json"];
	for (let round = 0; round < 400; round++) {
		for (const name of names) rules.verdict(`packages/p${round % 7}/src/${name}`, name, name.indexOf(".") === -1);
	}
}
