// Start-up cost of extensions in RPC mode. For 0 and for 3 extensions (copies of the examples in
// the agent dir's extensions/ folder) it spawns `node dist/cli.js --mode rpc --no-session` with an
// isolated agent dir, sends get_state and get_commands at once, and measures the time from spawn
// to each response. get_commands waits until every extension is loaded, so its time is "extensions
// ready". Prints the median (and range) of 7 runs. Run by hand after a build:
//   node bench/extensions-startup.mjs [runs]
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";

const CLI = resolve("dist/cli.js");
const EXAMPLES = resolve("examples/extensions");
const EXTENSIONS = ["confirm-dangerous-bash.ts", "status-widget.ts", "word-count-tool.ts"];
const RUNS = Number(process.argv[2] ?? 7);

/** A loopback port nothing listens on (the mock provider is never called). */
async function unusedPort() {
	const server = createServer();
	await new Promise((done) => server.listen(0, "127.0.0.1", done));
	const { port } = server.address();
	await new Promise((done) => server.close(done));
	return port;
}

function makeTree(port, extensions) {
	const root = mkdtempSync(join(tmpdir(), "atomic-ext-bench-"));
	const agentDir = join(root, "agent");
	const home = join(root, "home");
	const work = join(root, "work");
	for (const dir of [agentDir, home, work]) mkdirSync(dir, { recursive: true });
	const models = [{ id: "mock-model", name: "Mock", contextWindow: 200000, maxTokens: 8192 }];
	const providers = {
		mock: { baseUrl: `http://127.0.0.1:${port}`, api: "anthropic-messages", apiKey: "bench-key", models },
	};
	writeFileSync(join(agentDir, "models.json"), JSON.stringify({ providers }));
	writeFileSync(join(agentDir, "settings.json"), "{}");
	if (extensions.length > 0) {
		mkdirSync(join(agentDir, "extensions"));
		for (const name of extensions) copyFileSync(join(EXAMPLES, name), join(agentDir, "extensions", name));
	}
	return { root, agentDir, home, work };
}

/** The environment of a child: isolated dirs, and no provider keys from the caller's shell. */
function childEnv(tree) {
	const env = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (/^(ATOMIC_|PI_|ANTHROPIC_|OPENAI_|GEMINI_|GOOGLE_)/.test(key) || key.endsWith("_API_KEY")) continue;
		env[key] = value;
	}
	return { ...env, HOME: tree.home, ATOMIC_CODING_AGENT_DIR: tree.agentDir, NO_COLOR: "1" };
}

/** One start: milliseconds from spawn to the get_state and get_commands responses. */
function measure(tree, expectedCommands) {
	return new Promise((resolveRun, reject) => {
		const started = performance.now();
		const child = spawn(process.execPath, [CLI, "--mode", "rpc", "--no-session"], {
			cwd: tree.work,
			env: childEnv(tree),
			stdio: ["pipe", "pipe", "pipe"],
		});
		const times = {};
		let buffer = "";
		let stderr = "";
		const fail = (message) => {
			child.kill("SIGKILL");
			reject(new Error(`${message}; stderr: ${stderr.slice(-1000)}`));
		};
		const timer = setTimeout(() => fail("timed out"), 30_000);
		child.stderr.on("data", (chunk) => {
			stderr += chunk;
		});
		child.stdout.on("data", (chunk) => {
			buffer += chunk;
			for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
				const record = JSON.parse(buffer.slice(0, newline));
				buffer = buffer.slice(newline + 1);
				if (record.type !== "response") continue;
				times[record.id] = performance.now() - started;
				if (record.id === "c") {
					const names = record.data.commands.map((command) => command.name);
					if (JSON.stringify(names) !== JSON.stringify(expectedCommands))
						return fail(`unexpected commands ${JSON.stringify(names)}`);
				}
				if (times.s !== undefined && times.c !== undefined) child.stdin.end();
			}
		});
		child.on("exit", () => {
			clearTimeout(timer);
			if (times.s === undefined || times.c === undefined) return fail("exited before answering");
			resolveRun({ state: times.s, ready: times.c });
		});
		child.stdin.write(`${JSON.stringify({ id: "s", type: "get_state" })}\n`);
		child.stdin.write(`${JSON.stringify({ id: "c", type: "get_commands" })}\n`);
	});
}

function median(values) {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function cell(values) {
	const sorted = [...values].sort((a, b) => a - b);
	return `${median(values).toFixed(0)} ms (${sorted[0].toFixed(0)}-${sorted.at(-1).toFixed(0)})`;
}

if (!existsSync(CLI)) {
	console.error("dist/cli.js is missing: run `npm run build` first");
	process.exit(1);
}
const port = await unusedPort();
const configs = [
	{ label: "0 extensions", extensions: [], commands: [] },
	{ label: "3 extensions", extensions: EXTENSIONS, commands: ["status-demo"] },
];
const rows = [];
for (const config of configs) {
	const tree = makeTree(port, config.extensions);
	try {
		// One unmeasured start warms the file cache.
		await measure(tree, config.commands);
		const results = [];
		for (let run = 0; run < RUNS; run++) results.push(await measure(tree, config.commands));
		rows.push([config.label, cell(results.map((r) => r.state)), cell(results.map((r) => r.ready))]);
	} finally {
		rmSync(tree.root, { recursive: true, force: true });
	}
}

const header = ["", `get_state response (median of ${RUNS}, range)`, "extensions ready (get_commands response)"];
const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
const line = (row) => row.map((text, column) => text.padEnd(widths[column])).join(" | ");
console.log(line(header));
console.log(widths.map((width) => "-".repeat(width)).join("-|-"));
for (const row of rows) console.log(line(row));
console.log(`(${EXTENSIONS.join(", ")}; node ${process.version})`);
