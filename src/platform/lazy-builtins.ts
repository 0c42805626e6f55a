import { createRequire } from "node:module";

/**
 * Node modules that take milliseconds to load and that start-up does not use: each is loaded on
 * its first use (a spawn, a search worker, an https request) instead of with the module that uses it.
 */
const load = createRequire(import.meta.url);

type ChildProcessModule = typeof import("node:child_process");
type WorkerThreadsModule = typeof import("node:worker_threads");
type HttpsModule = typeof import("node:https");
type HttpModule = typeof import("node:http");

let childProcess: ChildProcessModule | undefined;
let workerThreads: WorkerThreadsModule | undefined;
let https: HttpsModule | undefined;
let http: HttpModule | undefined;

export function childProcessModule(): ChildProcessModule {
	if (!childProcess) {
		const loaded: ChildProcessModule = load("node:child_process");
		childProcess = loaded;
	}
	return childProcess;
}

export function workerThreadsModule(): WorkerThreadsModule {
	if (!workerThreads) {
		const loaded: WorkerThreadsModule = load("node:worker_threads");
		workerThreads = loaded;
	}
	return workerThreads;
}

/** TLS and https: a provider on a local server over http never loads them. */
export function httpsModule(): HttpsModule {
	if (!https) {
		const loaded: HttpsModule = load("node:https");
		https = loaded;
	}
	return https;
}

/** node:http for code that runs before any provider request (the idle preload's loopback server). */
export function httpModule(): HttpModule {
	if (!http) {
		const loaded: HttpModule = load("node:http");
		http = loaded;
	}
	return http;
}
