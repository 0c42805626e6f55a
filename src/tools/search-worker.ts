/**
 * The search worker's entry point (built as dist/search-worker.js). It runs grep and find jobs
 * off the main thread, so that a backtracking pattern or a huge tree cannot stall the process:
 * the main thread terminates the worker on abort or when the time limit is reached.
 */
import { parentPort } from "node:worker_threads";
import { runSearchJob } from "./search-jobs.js";
import { isSearchRequest, type SearchReply } from "./search-protocol.js";

const port = parentPort;
if (!port) throw new Error("search-worker.js runs as a worker thread only");

// Jobs run one after another: the main thread posts the next one only after the previous answered.
port.on("message", (message: unknown) => {
	if (!isSearchRequest(message)) {
		process.emitWarning("The search worker received a message that is not a search job");
		return;
	}
	const { id, job } = message;
	const post = (reply: SearchReply) => port.postMessage(reply);
	runSearchJob(job, (text) => post({ id, type: "line", text })).then(
		(summary) => post({ id, type: "done", summary }),
		(error: unknown) => post({ id, type: "error", message: error instanceof Error ? error.message : String(error) }),
	);
});
