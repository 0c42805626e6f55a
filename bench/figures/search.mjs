// The search group: one grep or find call made by the scripted model over RPC, timed from the
// agent's tool_execution_start to its tool_execution_end (arrival times), on a copy of node_modules
// (search-trees.mjs) and on five copies of it side by side. Beside each: the same query by ripgrep
// or fd, timed in the same runs (spawn → exit, output read), as the row's floor, with Atomic ÷ floor.
// Every agent runs with the tools read,bash,grep,find,ls (pi enables grep and find only when asked).
import { spawn, spawnSync } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { Agent } from "../agent.mjs";
import {
	describeTree,
	RARE_LITERAL,
	RARE_LITERAL_FILES,
	RARE_REGEX,
	SINGLE_NAME,
	searchTrees,
} from "../search-trees.mjs";
import { settle } from "../settle.mjs";
import { callPrompt, startToolModel } from "../tool-model.mjs";

const TOOL_ARGS = ["--tools", "read,bash,grep,find,ls"];
/** The fresh-process row waits this long after the first get_state response (start-up work done). */
const FIRST_SEARCH_DELAY_MS = 5000;
/** A tool call may take this long (the 5× tree, a slow engine) before the run counts as failed. */
const TOOL_TIMEOUT_MS = 180_000;

const available = new Map();
/** Whether `tool --version` runs (rg and fdfind are optional: their floors are then left out). */
function onPath(tool) {
	if (!available.has(tool)) {
		const result = spawnSync(tool, ["--version"], { stdio: "ignore" });
		available.set(tool, result.error === undefined && result.status === 0);
	}
	return available.get(tool);
}

/**
 * The queries, for a tree whose kept files are found under `prefixes` (one "" for the single tree,
 * "copy-1/" … for the five copies). `expect` are paths each result must name.
 */
function queries(root, prefixes) {
	const under = (paths) => prefixes.flatMap((prefix) => paths.map((path) => `${prefix}${path}`));
	const literal = { pattern: RARE_LITERAL, literal: true, path: root };
	return [
		{
			key: "grepLiteralMs",
			label: "grep rare literal (a full scan)",
			tool: "grep",
			input: literal,
			reference: ["rg", "-n", "--hidden", "-F", RARE_LITERAL],
			expect: under(RARE_LITERAL_FILES),
		},
		{
			key: "grepRegexMs",
			label: `grep regex \`${RARE_REGEX}\` (a full scan)`,
			tool: "grep",
			input: { pattern: RARE_REGEX, path: root },
			reference: ["rg", "-n", "--hidden", RARE_REGEX],
			expect: under(["planted/kept.ts"]),
		},
		{
			key: "grepGlobMs",
			label: "grep rare literal, glob `*.ts`",
			tool: "grep",
			input: { ...literal, glob: "*.ts" },
			reference: ["rg", "-n", "--hidden", "-F", "-g", "*.ts", RARE_LITERAL],
			expect: under(["planted/kept.ts"]),
		},
		{
			key: "grepIgnoreCaseMs",
			label: "grep rare literal, case-insensitive",
			tool: "grep",
			input: { ...literal, pattern: RARE_LITERAL.toUpperCase(), ignoreCase: true },
			reference: ["rg", "-n", "--hidden", "-F", "-i", RARE_LITERAL.toUpperCase()],
			expect: under(RARE_LITERAL_FILES),
		},
		{
			key: "grepContextMs",
			label: "grep rare literal, 2 context lines",
			tool: "grep",
			input: { ...literal, context: 2 },
			reference: ["rg", "-n", "--hidden", "-F", "-C", "2", RARE_LITERAL],
			expect: under(RARE_LITERAL_FILES),
		},
		{
			key: "findDtsMs",
			label: "find `**/*.d.ts`, limit 100000 (a full walk)",
			tool: "find",
			input: { pattern: "**/*.d.ts", path: root, limit: 100_000 },
			reference: ["fdfind", "-H", "-g", "*.d.ts"],
			expect: [],
		},
		{
			key: "findNameMs",
			label: `find \`${SINGLE_NAME}\` (one hit, a full walk)`,
			tool: "find",
			input: { pattern: SINGLE_NAME, path: root },
			reference: ["fdfind", "-H", "-g", SINGLE_NAME],
			expect: under([`planted/deep/er/${SINGLE_NAME}`]),
		},
	];
}

function referenceText(reference) {
	return reference.map((part) => (/[\s*\\]/.test(part) ? `'${part}'` : part)).join(" ");
}

/** Wall time of the reference command in `cwd` (spawn → exit, its output read); undefined when missing. */
function timeReference(reference, cwd) {
	const [command, ...args] = reference;
	if (!onPath(command)) return Promise.resolve(undefined);
	return new Promise((resolve, reject) => {
		const startedAt = performance.now();
		// stdin is /dev/null: rg would otherwise search a piped stdin instead of the folder.
		const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "ignore"] });
		child.stdout.resume();
		child.on("error", reject);
		child.on("close", () => resolve(performance.now() - startedAt));
	});
}

function resultText(end) {
	const content = end.object?.result?.content;
	if (!Array.isArray(content)) return "";
	return content
		.filter((block) => block?.type === "text")
		.map((block) => block.text)
		.join("\n");
}

/** One prompt whose reply calls the query's tool; the tool's time, after checking what it found. */
async function runQuery(agent, query) {
	const { from, end } = await agent.prompt(callPrompt(query.tool, query.input), { timeoutMs: TOOL_TIMEOUT_MS });
	const records = agent.records.slice(from, end.index);
	const start = records.find((record) => record.type === "tool_execution_start");
	const finish = records.find((record) => record.type === "tool_execution_end");
	if (!start || !finish) throw new Error(`the prompt ran no ${query.tool} tool`);
	const text = resultText(finish);
	if (finish.object?.isError) throw new Error(`${query.tool} failed: ${text.slice(0, 200)}`);
	if (/Search stopped after \d+ s/.test(text)) throw new Error(`${query.key}: the search hit its time limit`);
	const missing = query.expect.filter((path) => !text.includes(path));
	if (missing.length > 0) throw new Error(`${query.key}: the result does not name ${missing.join(", ")}`);
	return finish.time - start.time;
}

/** A figure on one warm agent per peer: every query once untimed (warm cache, warm code), then timed runs. */
function treeFigure({ id, which, title }) {
	const sample = queries("<tree>", [""]);
	return {
		id,
		group: "search",
		rows: sample.map((query) => ({
			key: query.key,
			label: `${title}: ${query.label}; floor: \`${referenceText(query.reference)}\``,
			unit: "ms",
			floorKey: `${query.key}Reference`,
			showFloorRatio: true,
		})),
		async prepare(spec) {
			const tree = searchTrees()[which];
			const prefixes = which === "one" ? [""] : [1, 2, 3, 4, 5].map((copy) => `copy-${copy}/`);
			const model = await startToolModel();
			const agent = Agent.launch(spec, model.baseUrl, { args: TOOL_ARGS });
			const state = { agent, model, tree, queries: queries(tree.root, prefixes) };
			try {
				await agent.ok({ type: "get_state" });
				for (const query of state.queries) {
					await runQuery(agent, query);
					if (spec.id === "atomic") await timeReference(query.reference, tree.root);
				}
				return state;
			} catch (error) {
				await agent.close();
				await model.stop();
				throw error;
			}
		},
		async measure(spec, _context, state) {
			const result = {};
			for (const query of state.queries) {
				await settle();
				result[query.key] = await runQuery(state.agent, query);
				// The floors are timed between Atomic's calls, so that both see the same machine.
				if (spec.id !== "atomic") continue;
				await settle();
				const reference = await timeReference(query.reference, state.tree.root);
				if (reference !== undefined) result[`${query.key}Reference`] = reference;
			}
			return result;
		},
		async finish(state) {
			await state.agent.close();
			await state.model.stop();
		},
		notes: () => searchNotes(which),
	};
}

function searchNotes(which) {
	const notes = [];
	try {
		const trees = searchTrees();
		const tree = trees[which];
		const what = which === "one" ? "a copy of node_modules, made a git repository" : "five hard-linked copies of it";
		notes.push(`search ${which === "one" ? "1×" : "5×"} tree: ${what}; ${describeTree(tree)}`);
	} catch (error) {
		notes.push(`search trees could not be made: ${error instanceof Error ? error.message : String(error)}`);
	}
	for (const tool of ["rg", "fdfind"])
		if (!onPath(tool))
			notes.push(`search: ${tool} is not on PATH, so its floors (and the ratios to them) are left out`);
	return notes;
}

export const searchTree = treeFigure({ id: "search-tree", which: "one", title: "1× tree" });
export const searchTree5x = treeFigure({ id: "search-tree-5x", which: "five", title: "5× tree" });

/** The first search of a fresh process; the search after a long idle is described in the notes. */
export const searchFirst = {
	id: "search-first",
	group: "search",
	rows: [
		{
			key: "firstSearchMs",
			label: `first search of a fresh process (grep rare literal, 1× tree, ${FIRST_SEARCH_DELAY_MS / 1000} s after start-up); floor: \`rg -n --hidden -F\``,
			unit: "ms",
			floorKey: "firstSearchReference",
			showFloorRatio: true,
		},
	],
	async measure(spec) {
		const tree = searchTrees().one;
		const [query] = queries(tree.root, [""]);
		const model = await startToolModel();
		const agent = Agent.launch(spec, model.baseUrl, { args: TOOL_ARGS });
		try {
			await agent.ok({ type: "get_state" });
			await sleep(FIRST_SEARCH_DELAY_MS);
			const firstSearchMs = await runQuery(agent, query);
			if (spec.id !== "atomic") return { firstSearchMs };
			await settle();
			return { firstSearchMs, firstSearchReference: await timeReference(query.reference, tree.root) };
		} finally {
			await agent.close();
			await model.stop();
		}
	},
	notes: () => [
		"search after a long idle: not measured. A model that thinks for minutes between two searches pays for whatever the engine stopped while idle; measuring it needs an idle period the engine lets the bench shorten (an environment variable), and none exists, so only the first search of a fresh process is measured",
	],
};

export const searchFigures = [searchTree, searchTree5x, searchFirst];
