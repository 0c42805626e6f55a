// `npm run bench`: Atomic side by side with the pi peers over one loopback model server.
//   npm run bench -- [--only <figure or group>[,...]] [--runs N] [--agents atomic,pi-1.6.0,pi-0.73.1] [--no-install]
//                    [--profile <dir>]   (Atomic runs under `node --cpu-prof`, profiles written to <dir>;
//                                         summarise one with `node bench/profile-summary.mjs <file>`)
//                    [--node-args "<flags>"]  (extra node flags for Atomic, e.g. "--max-semi-space-size=4")
//                    [--baseline <checkout>]  (another checkout of Atomic with its dist built, e.g. a `git worktree`
//                                         of an earlier commit: measured beside this one as `atomic-base`, so
//                                         one run gives the before and after, and their ratio)
//                    [--heap-snapshots <dir>] (long-session: Atomic writes a heap snapshot to <dir> after 25 and
//                                         1500 prompts; compare them with `node bench/heap-diff.mjs a b`.
//                                         Writing one inflates RSS: the memory rows of such a run are not figures)
// Prints the table (medians and us/peer ratios) on stdout, progress on stderr, and writes
// bench/results/<timestamp>.json and bench/results/latest.json.
import { Agent as HttpAgent } from "node:http";
import { cpus, loadavg } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { Agent } from "./agent.mjs";
import bigPrompt from "./figures/big-prompt.mjs";
import coldStart from "./figures/cold-start.mjs";
import coldStartAcp from "./figures/cold-start-acp.mjs";
import coldStartMcp from "./figures/cold-start-mcp.mjs";
import directBash from "./figures/direct-bash.mjs";
import firstPrompt from "./figures/first-prompt.mjs";
import firstPromptTls from "./figures/first-prompt-tls.mjs";
import hugePrompt from "./figures/huge-prompt.mjs";
import longSession from "./figures/long-session.mjs";
import { searchFigures } from "./figures/search.mjs";
import { serveFigures } from "./figures/serve.mjs";
import sessionOpen from "./figures/session-open.mjs";
import slowReader from "./figures/slow-reader.mjs";
import streamReply from "./figures/stream-reply.mjs";
import toolLoop from "./figures/tool-loop.mjs";
import toolLoopSandboxed from "./figures/tool-loop-sandboxed.mjs";
import warmPrompt from "./figures/warm-prompt.mjs";
import { floors, measureFloors } from "./floors.mjs";
import { startMock } from "./mock.mjs";
import { agentIds, resolveAgents } from "./peers.mjs";
import { formatValue, renderTable, summarise, writeResults } from "./report.mjs";
import { settle } from "./settle.mjs";

const allFigures = [
	coldStart,
	coldStartAcp,
	coldStartMcp,
	streamReply,
	warmPrompt,
	toolLoop,
	toolLoopSandboxed,
	firstPrompt,
	firstPromptTls,
	bigPrompt,
	hugePrompt,
	longSession,
	directBash,
	slowReader,
	sessionOpen,
	...searchFigures,
	...serveFigures,
];

/** Figures that `--only <group>` selects together (a figure's `group`). */
const groups = [...new Set(allFigures.map((figure) => figure.group).filter(Boolean))];

function parseOptions() {
	const { values } = parseArgs({
		options: {
			only: { type: "string", multiple: true },
			runs: { type: "string", default: "5" },
			agents: { type: "string", default: agentIds.join(",") },
			"no-install": { type: "boolean", default: false },
			profile: { type: "string" },
			"heap-snapshots": { type: "string" },
			"node-args": { type: "string", default: "" },
			baseline: { type: "string" },
			help: { type: "boolean", default: false },
		},
	});
	if (values.help) {
		console.log(
			`usage: npm run bench -- [--only <figure or group>[,...]] [--runs N] [--agents ${agentIds.join(",")}] [--no-install] [--profile <dir>] [--heap-snapshots <dir>] [--node-args "<flags>"] [--baseline <checkout>]\nfigures: ${allFigures.map((figure) => figure.id).join(", ")}\ngroups: ${groups.join(", ")}`,
		);
		process.exit(0);
	}
	const named = (values.only ?? []).flatMap((list) => list.split(",")).filter(Boolean);
	const only = named.flatMap((id) =>
		groups.includes(id) ? allFigures.filter((figure) => figure.group === id).map((figure) => figure.id) : [id],
	);
	const unknown = only.filter((id) => !allFigures.some((figure) => figure.id === id));
	if (unknown.length > 0)
		throw new Error(
			`unknown figure(s) ${unknown.join(", ")}; known: ${allFigures.map((f) => f.id).join(", ")}; groups: ${groups.join(", ")}`,
		);
	const runs = Number(values.runs);
	if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer, got ${values.runs}`);
	const agents = values.agents.split(",").filter(Boolean);
	const badAgents = agents.filter((id) => !agentIds.includes(id));
	if (badAgents.length > 0) throw new Error(`unknown agent(s) ${badAgents.join(", ")}; known: ${agentIds.join(", ")}`);
	return {
		figures: only.length > 0 ? allFigures.filter((figure) => only.includes(figure.id)) : allFigures,
		runs,
		agents,
		heapSnapshotDir: values["heap-snapshots"] ? resolve(values["heap-snapshots"]) : undefined,
		allowInstall: !values["no-install"],
		baseline: values.baseline ? resolve(values.baseline) : undefined,
		atomicNodeArgs: [
			...(values.profile ? ["--cpu-prof", `--cpu-prof-dir=${resolve(values.profile)}`] : []),
			...(values["heap-snapshots"]
				? ["--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${resolve(values["heap-snapshots"])}`]
				: []),
			...values["node-args"].split(/\s+/).filter(Boolean),
		],
	};
}

function describeError(error) {
	return error instanceof Error ? error.message.split("\n")[0].slice(0, 300) : String(error);
}

function describeRun(figure, result) {
	return figure.rows.map((row) => `${row.key}=${formatValue(result[row.key], row.unit)}`).join(" ");
}

/**
 * Runs one figure for every agent. Runs are interleaved (run 1 of each agent, then run 2, …) so that
 * drifting background load spreads over all agents instead of landing on one.
 */
async function runFigure(figure, specs, context, defaultRuns) {
	const outcomes = {};
	const states = new Map();
	for (const spec of specs) {
		if (figure.atomicOnly && spec.kind !== "atomic") outcomes[spec.id] = { skipped: "Atomic only" };
		else if (!spec.available) outcomes[spec.id] = { error: spec.reason };
	}
	const active = () => specs.filter((spec) => outcomes[spec.id] === undefined || outcomes[spec.id].runs);
	for (const spec of active()) {
		try {
			states.set(spec.id, figure.prepare ? await figure.prepare(spec, context) : undefined);
			outcomes[spec.id] = { runs: [] };
		} catch (error) {
			outcomes[spec.id] = { error: `setup failed: ${describeError(error)}` };
			console.error(`# ${figure.id} ${spec.id}: ${outcomes[spec.id].error}`);
		}
	}
	const runs = figure.runs ?? defaultRuns;
	try {
		for (let run = 1; run <= runs; run++) {
			const measureOne = async (spec) => {
				// Before each run: the collector's pause stays out of it, and each starts from the same
				// quiet as the floors' runs (settle.mjs).
				if (!figure.parallel) await settle();
				try {
					const result = await figure.measure(spec, context, states.get(spec.id));
					outcomes[spec.id].runs.push(result);
					console.error(`# ${figure.id} ${spec.id} run ${run}/${runs}: ${describeRun(figure, result)}`);
				} catch (error) {
					outcomes[spec.id] = { error: describeError(error) };
					console.error(`# ${figure.id} ${spec.id} run ${run}/${runs} failed: ${outcomes[spec.id].error}`);
				}
			};
			// A `parallel` figure (memory, not time) runs the agents side by side.
			if (figure.parallel) await Promise.all(active().map(measureOne));
			else for (const spec of active()) await measureOne(spec);
		}
	} finally {
		if (figure.finish) for (const state of states.values()) if (state !== undefined) await figure.finish(state);
	}
	return outcomes;
}

async function main() {
	const options = parseOptions();
	const startedAt = new Date().toISOString();
	const specs = resolveAgents(options.agents, options);
	const mock = await startMock();
	const httpAgent = new HttpAgent({ keepAlive: true });
	const context = {
		baseUrl: mock.baseUrl,
		httpAgent,
		launch: (spec, launchOptions) => Agent.launch(spec, mock.baseUrl, launchOptions),
		heapSnapshotDir: options.heapSnapshotDir,
	};
	const outcomes = {};
	let floorValues = {};
	const loadBefore = loadavg();
	const floorIds = [...new Set(options.figures.flatMap((figure) => figure.rows.map((row) => row.floor)))].filter(
		(id) => id !== undefined,
	);
	try {
		floorValues = await measureFloors(floorIds, context, options.runs);
		for (const figure of options.figures) outcomes[figure.id] = await runFigure(figure, specs, context, options.runs);
	} finally {
		httpAgent.destroy();
		await mock.stop();
	}
	const rows = summarise(options.figures, specs, outcomes, floorValues);
	console.log(renderTable(rows, specs));
	for (const [id, value] of Object.entries(floorValues))
		console.log(`* floor ${id}: ${floors[id].label}: ${formatValue(value.median, floors[id].unit)}`);
	const notes = [...new Set(options.figures.flatMap((figure) => figure.notes?.() ?? []))];
	for (const note of notes) console.log(`* ${note}`);
	const report = {
		startedAt,
		finishedAt: new Date().toISOString(),
		runs: options.runs,
		host: { node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model, loadBefore, loadAfter: loadavg() },
		units: { MB: "2^20 bytes", "k/s": "thousand events per second" },
		agents: specs.map(({ id, label, version, available, reason, nodeVersion, command, args }) => ({
			id,
			label,
			version,
			available,
			reason,
			nodeVersion,
			command: [command, ...(args ?? [])].join(" "),
		})),
		rows,
		floors: floorValues,
		notes,
	};
	const load = (values) => values.map((value) => value.toFixed(1)).join(" ");
	console.log(
		`* load average before ${load(loadBefore)}, after ${load(report.host.loadAfter)} (${cpus().length} CPUs)`,
	);
	console.error(`# wrote ${writeResults(report)} and bench/results/latest.json`);
}

await main();
