/**
 * Preloaded into the CLI: logs, at exit, each script compiled with cached data, whether V8 took it,
 * the size of that cache and the size of the cache V8 would make of the script now (it holds every
 * function compiled so far: what the run compiled beyond the cache makes it larger).
 */
export const RECORDER = `
const vm = require("node:vm");
const { appendFileSync } = require("node:fs");
const Script = vm.Script;
const seen = [];
vm.Script = class extends Script {
	constructor(code, options) {
		super(code, options);
		if (options && options.cachedData)
			seen.push({ file: options.filename, rejected: this.cachedDataRejected, size: options.cachedData.length, script: this });
	}
};
process.on("exit", () =>
	appendFileSync(
		process.env.RECORD_TO,
		JSON.stringify(seen.map(({ script, ...entry }) => ({ ...entry, atExit: script.createCachedData().length }))),
	),
);
`;

export interface Compiled {
	file: string;
	rejected: boolean;
	/** The cache's size, and that of the cache V8 would make at exit. */
	size: number;
	atExit: number;
}
