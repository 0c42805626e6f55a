// Turns per-run measurements into medians, ratios and goal checks; prints the table, writes the JSON.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const resultsDir = join(dirname(fileURLToPath(import.meta.url)), "results");

export function median(values) {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	if (sorted.length === 0) return undefined;
	return sorted.length % 2 === 1 ? sorted[middle] : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

export function formatValue(value, unit) {
	if (value === undefined) return "—";
	switch (unit) {
		case "ms":
			return `${value.toFixed(value >= 100 ? 0 : value >= 10 ? 1 : 2)} ms`;
		case "MB":
			return value < 1 ? `${(value * 1024).toFixed(0)} KB` : `${value.toFixed(1)} MB`;
		case "k/s":
			return `${value.toFixed(1)} k/s`;
		case "%":
			return `${value >= 0 ? "+" : ""}${value.toFixed(1)}%`;
		case "×":
			return `${value.toFixed(2)}×`;
		default:
			return String(value);
	}
}

/**
 * A row's goal (optional) is one of: `{ max }` / `{ min }` (absolute), `{ peerRatio, peer }` (at most that
 * multiple of the peer's median), `{ floorPlus }` (at most that much above the row's floor) or
 * `{ floorTimes }` (at most that multiple of the floor).
 */
function goalText(row, specs) {
	const goal = row.goal;
	// A row without a goal is there for reading the others (e.g. the fresh process's RSS).
	if (goal === undefined) return "—";
	if (goal.peerRatio !== undefined) {
		const label = specs.find((spec) => spec.id === goal.peer)?.label ?? goal.peer;
		return `≤ ${goal.peerRatio.toFixed(2)}× ${label}`;
	}
	if (goal.floorPlus !== undefined) return `≤ floor + ${formatValue(goal.floorPlus, row.unit)}`;
	if (goal.floorTimes !== undefined) return `≤ ${goal.floorTimes}× floor`;
	if (goal.max !== undefined) return `≤ ${formatValue(goal.max, row.unit)}`;
	return `≥ ${formatValue(goal.min, row.unit)}`;
}

function meetsGoal(row, value, ratios, floor) {
	const goal = row.goal;
	if (value === undefined || goal === undefined) return undefined;
	if (goal.peerRatio !== undefined)
		return ratios[goal.peer] === undefined ? undefined : ratios[goal.peer] <= goal.peerRatio;
	if (goal.floorPlus !== undefined) return floor === undefined ? undefined : value <= floor + goal.floorPlus;
	if (goal.floorTimes !== undefined) return floor === undefined ? undefined : value <= floor * goal.floorTimes;
	return goal.max !== undefined ? value <= goal.max : value >= goal.min;
}

/**
 * The floor beside a row: a measured floor (`row.floor`, an id in floors.mjs) or, with
 * `row.floorKey`, Atomic's own median of another value of the same runs (e.g. its idle RSS).
 */
function floorOf(row, floorValues, outcomes, figure) {
	if (row.floor !== undefined) return floorValues[row.floor]?.median;
	if (row.floorKey === undefined) return undefined;
	const runs = outcomes[figure.id]?.atomic?.runs;
	if (!runs) return undefined;
	return median(runs.map((run) => run[row.floorKey]).filter((value) => typeof value === "number"));
}

/**
 * One entry per table row. `outcomes[figureId][agentId]` is `{ runs: object[] }`, `{ error }`, or
 * `{ skipped }` (a figure the agent does not take part in).
 */
export function summarise(figures, specs, outcomes, floorValues = {}) {
	const rows = [];
	for (const figure of figures) {
		for (const row of figure.rows) {
			const agents = {};
			for (const spec of specs) {
				const outcome = outcomes[figure.id]?.[spec.id] ?? { skipped: "not run" };
				if (!outcome.runs) {
					agents[spec.id] = { median: undefined, ...outcome };
					continue;
				}
				const values = outcome.runs.map((run) => run[row.key]).filter((value) => typeof value === "number");
				agents[spec.id] = { median: median(values), runs: values, details: outcome.runs };
			}
			const ours = agents.atomic?.median;
			const ratios = {};
			for (const spec of specs) {
				const theirs = agents[spec.id]?.median;
				if (spec.id !== "atomic" && ours !== undefined && theirs) ratios[spec.id] = ours / theirs;
			}
			const floor = floorOf(row, floorValues, outcomes, figure);
			rows.push({
				figure: figure.id,
				...row,
				goalText: goalText(row, specs),
				agents,
				ratios,
				floorValue: floor,
				floorRatio: row.showFloorRatio && ours !== undefined && floor ? ours / floor : undefined,
				meetsGoal: meetsGoal(row, ours, ratios, floor),
			});
		}
	}
	return rows;
}

function cell(agent, unit) {
	if (agent.median !== undefined) return formatValue(agent.median, unit);
	if (agent.error) return "n/a*";
	return "—";
}

/** The table as aligned plain text, followed by the reasons for every n/a cell. */
export function renderTable(rows, specs) {
	const peers = specs.filter((spec) => spec.id !== "atomic");
	const header = [
		"figure",
		...specs.map((spec) => spec.label),
		...peers.map((peer) => `us/${peer.label}`),
		"floor",
		"goal (Atomic)",
		"meets",
	];
	const lines = rows.map((row) => [
		row.label,
		...specs.map((spec) => cell(row.agents[spec.id], row.unit)),
		...peers.map((peer) => (row.ratios[peer.id] === undefined ? "—" : `${row.ratios[peer.id].toFixed(2)}×`)),
		row.floorRatio === undefined
			? formatValue(row.floorValue, row.unit)
			: `${formatValue(row.floorValue, row.unit)} (us ${row.floorRatio.toFixed(2)}×)`,
		row.goalText,
		row.meetsGoal === undefined ? "—" : row.meetsGoal ? "yes" : "NO",
	]);
	const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column].length)));
	const render = (line) => `| ${line.map((text, column) => text.padEnd(widths[column])).join(" | ")} |`;
	const output = [render(header), `|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`, ...lines.map(render)];
	const reasons = new Map();
	for (const row of rows) {
		for (const spec of specs) {
			const error = row.agents[spec.id]?.error;
			if (error) reasons.set(`${spec.label}, ${row.figure}`, error);
		}
	}
	output.push("* us/peer = Atomic's median ÷ the peer's: below 1× is better, except for events per second.");
	output.push(
		"* floor: what the same work costs without an agent (listed below), or one taken in the figure's own runs: `node -e 0` timed just before each cold start, Atomic's own idle RSS for ratios to idle. Every timed run, an agent's or a floor's, starts after a collection of the bench's heap and 20 ms of quiet (bench/settle.mjs).",
	);
	if (rows.some((row) => row.floorRatio !== undefined))
		output.push(
			"* floor (us N×): Atomic's median ÷ the floor's median, for rows whose floor is another program (rg, fd).",
		);
	for (const [where, reason] of reasons) output.push(`* n/a (${where}): ${reason}`);
	return output.join("\n");
}

/** Writes results/<timestamp>.json and results/latest.json; returns the timestamped path. */
export function writeResults(report) {
	mkdirSync(resultsDir, { recursive: true });
	const text = `${JSON.stringify(report, null, 2)}\n`;
	const path = join(resultsDir, `${report.startedAt.replace(/[:.]/g, "-")}.json`);
	writeFileSync(path, text);
	writeFileSync(join(resultsDir, "latest.json"), text);
	return path;
}
