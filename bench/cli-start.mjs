// Start-up of the CLI's quick paths beside bare Node: `node bench/cli-start.mjs [--runs N]`.
// The commands are run interleaved (one of each per round), so a machine that speeds up or slows
// down during the run affects them all alike; prints the median of each.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { runs: { type: "string", default: "60" } } });
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, got ${values.runs}`);

const cli = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "cli.js");
const scratch = mkdtempSync(join(tmpdir(), "atomic-cli-start-"));
const emptyModule = join(scratch, "empty.mjs");
writeFileSync(emptyModule, "");
// An empty agent dir: the figures do not depend on the caller's models.json or credentials.
const env = { ...process.env, ATOMIC_CODING_AGENT_DIR: join(scratch, "agent") };

const commands = [
	["node -e 0", ["-e", "0"]],
	["node empty.mjs", [emptyModule]],
	["atomic --version", [cli, "--version"]],
	["atomic --list-models", [cli, "--list-models"]],
];

function time(args) {
	const startedAt = performance.now();
	const result = spawnSync(process.execPath, args, { stdio: "ignore", env });
	if (result.status !== 0) throw new Error(`node ${args.join(" ")} exited with ${result.status}`);
	return performance.now() - startedAt;
}

for (let round = 0; round < 3; round++) for (const [, args] of commands) time(args);
const samples = commands.map(() => []);
for (let round = 0; round < runs; round++) {
	for (const [index, [, args]] of commands.entries()) samples[index].push(time(args));
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const baseline = median(samples[0]);
for (const [index, [label]] of commands.entries()) {
	const value = median(samples[index]);
	const delta = index === 0 ? "" : ` (${value - baseline >= 0 ? "+" : ""}${(value - baseline).toFixed(1)} ms)`;
	console.log(`${label.padEnd(22)} ${value.toFixed(1).padStart(7)} ms${delta}`);
}
console.log(`median of ${runs} interleaved runs, node ${process.version}`);
