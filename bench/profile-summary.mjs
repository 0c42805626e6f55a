// Top self-time functions of a V8 .cpuprofile (as written by `node --cpu-prof`).
//   node bench/profile-summary.mjs <file.cpuprofile> [--top N] [--window START-END]
// --window keeps the samples taken between two CLOCK_MONOTONIC microsecond stamps (see clock.mjs;
// the big-prompt figure records them in the results JSON).
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
	allowPositionals: true,
	options: { top: { type: "string", default: "20" }, window: { type: "string" } },
});
const file = positionals[0];
if (!file) {
	console.error("usage: node bench/profile-summary.mjs <file.cpuprofile> [--top N] [--window START-END]");
	process.exit(2);
}
const [windowStart, windowEnd] = values.window ? values.window.split("-").map(Number) : [-Infinity, Infinity];
const profile = JSON.parse(readFileSync(file, "utf8"));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));

// Sample i was taken at startTime + timeDeltas[0..i] and lasted until the next one.
const selfMicros = new Map();
let stamp = profile.startTime;
for (let index = 0; index < profile.samples.length; index++) {
	stamp += profile.timeDeltas[index] ?? 0;
	if (stamp < windowStart || stamp > windowEnd) continue;
	const id = profile.samples[index];
	selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index + 1] ?? 0));
}

const byFunction = new Map();
let total = 0;
for (const [id, micros] of selfMicros) {
	const frame = nodes.get(id)?.callFrame;
	if (!frame) continue;
	const where = frame.url ? `${basename(frame.url)}:${frame.lineNumber + 1}` : "";
	const key = `${frame.functionName || "(anonymous)"} ${where}`.trim();
	byFunction.set(key, (byFunction.get(key) ?? 0) + micros);
	total += micros;
}

const top = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top));
console.log(`${basename(file)}: ${(total / 1000).toFixed(1)} ms sampled${values.window ? ` in ${values.window}` : ""}`);
for (const [name, micros] of top) {
	console.log(
		`${(micros / 1000).toFixed(1).padStart(9)} ms ${((micros / total) * 100).toFixed(1).padStart(5)}%  ${name}`,
	);
}
