// Opening a 100 MB session and building its context, from bench/session-open.bench.ts (Atomic only:
// it calls Atomic's session store in-process, which the peers do not share).
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const benchDir = dirname(dirname(fileURLToPath(import.meta.url)));

function runSessionBench() {
	return new Promise((resolve, reject) => {
		const child = spawn(
			process.execPath,
			[join(benchDir, "..", "scripts", "run-ts.mjs"), join(benchDir, "session-open.bench.ts"), "100"],
			{
				cwd: dirname(benchDir),
				stdio: ["ignore", "pipe", "pipe"],
			},
		);
		let output = "";
		child.stdout.setEncoding("utf8");
		child.stderr.setEncoding("utf8");
		child.stdout.on("data", (text) => {
			output += text;
		});
		child.stderr.on("data", (text) => {
			output += text;
		});
		child.on("error", (error) =>
			reject(new Error(`session bench could not start: ${error.message}`, { cause: error })),
		);
		child.on("exit", (code) => {
			if (code === 0) resolve(output);
			else reject(new Error(`session bench exited with ${code}: ${output.slice(-400)}`));
		});
	});
}

export default {
	id: "session-open",
	rows: [{ key: "sessionOpenMs", label: "open a 100 MB session and build context", unit: "ms", goal: { max: 1000 } }],
	atomicOnly: true,
	// The session bench takes the median of its own 5 runs.
	runs: 1,
	async measure() {
		const output = await runSessionBench();
		const match = /open \+ context: median (\d+(?:\.\d+)?) ms/.exec(output);
		if (!match) throw new Error(`no "open + context" line in the session bench output: ${output.slice(-400)}`);
		const openMatch = /open (\d+) MB session: median (\d+) ms/.exec(output);
		const contextMatch = /build context: median (\d+) ms/.exec(output);
		return {
			sessionOpenMs: Number(match[1]),
			openMs: openMatch ? Number(openMatch[2]) : undefined,
			buildContextMs: contextMatch ? Number(contextMatch[1]) : undefined,
		};
	},
};
