import { promises } from "node:fs";
import { createRequire } from "node:module";

/**
 * Node modules that take milliseconds to load and that start-up does not use: each is loaded on
 * its first use (a spawn, a search worker, an http or https request) instead of with the module
 * that uses it. Through require, which the CLI's code-cached chunks can use (src/cli/compile-cache.ts).
 */
const load = createRequire(import.meta.url);

/** A function that requires `name` on its first call and returns the same module after. */
function onFirstUse<Module>(name: string): () => Module {
	let module: Module | undefined;
	return () => {
		if (module === undefined) {
			const loaded: Module = load(name);
			module = loaded;
		}
		return module;
	};
}

export const childProcessModule = onFirstUse<typeof import("node:child_process")>("node:child_process");

export const workerThreadsModule = onFirstUse<typeof import("node:worker_threads")>("node:worker_threads");

/** TLS and https: a provider on a local server over http never loads them. */
export const httpsModule = onFirstUse<typeof import("node:https")>("node:https");

/** node:http for code that runs before any provider request (the idle preload's loopback server). */
export const httpModule = onFirstUse<typeof import("node:http")>("node:http");

/** node:crypto: random ids read /dev/urandom where it exists (src/platform/random.ts); hashes and fallbacks load it. */
export const cryptoModule = onFirstUse<typeof import("node:crypto")>("node:crypto");

/**
 * node:fs/promises, which loads readline, the file watchers and directory handles with it: start-up
 * reads its files synchronously and none of that runs before the first response. node:fs's
 * `promises` getter loads it on first access.
 */
export function fsPromises(): typeof promises {
	return promises;
}
