/**
 * The search worker's entry point (built as dist/search-worker.js). It runs grep and find jobs off
 * the main thread, so that a backtracking pattern or a huge tree cannot stall the process: the
 * main thread terminates the worker on abort or when the time limit is reached. A job runs
 * synchronously from start to end; its lines are posted file by file.
 */
import { parentPort } from "node:worker_threads";
import { runSearchJob } from "./jobs.js";
import { isSearchRequest, type SearchReply } from "./protocol.js";

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
	try {
		post({ id, type: "done", summary: runSearchJob(job, (lines) => post({ id, type: "lines", lines })) });
	} catch (error) {
		post({ id, type: "error", message: error instanceof Error ? error.message : String(error) });
	}
});
