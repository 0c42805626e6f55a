// Writes dist/compile-cache (see src/cli/compile-cache.ts and docs/architecture.md "The bundle"):
// the CLI runs in write mode in ACP mode through initialize, a session and one tool loop prompt,
// then in RPC mode, once per API below, through start-up and the idle preload (which loads the
// API's provider module and SDK), and last once more with a tool loop prompt. The prompts go to a
// loopback server (prime-server.mjs); nothing leaves the machine. Each run starts from the caches
// the runs before it wrote and writes, as it exits, the code of the chunks it loaded with every
// function that ran or came from those caches.
//
// A run ends once its work is done: the CLI says `preload: done` on stderr (ATOMIC_DEBUG_IDLE=1)
// when its idle preload has run every step, and a prompt run also waits for the prompt's end. A run
// that fails or misses its deadline is reported as a warning and leaves its part of the cache out:
// the chunks it would have covered are compiled at run time, as without a cache. The install goes on.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PRIME_REPLY, startPrimeServer } from "./prime-server.mjs";

const PRIMED_APIS = ["anthropic-messages", "openai-completions", "openai-responses"];
/** A run that has not finished its work by then is stopped, and its part of the cache left out. */
const RUN_DEADLINE_MS = 60_000;
const CACHE_ROOT = join("dist", "compile-cache");

const INITIALIZE = `${JSON.stringify({ jsonrpc: "2.0", id: "build", method: "initialize", params: { protocolVersion: 1 } })}\n`;
const GET_STATE = '{"type":"get_state","id":"build"}\n';
const PROMPT = '{"type":"prompt","id":"prompt","message":"Run it."}\n';

/** ACP: the session/new request for a working directory, and the prompt for the session it opened. */
const sessionNew = (cwd) =>
	`${JSON.stringify({ jsonrpc: "2.0", id: "session", method: "session/new", params: { cwd, mcpServers: [] } })}\n`;
const sessionPrompt = (sessionId) =>
	`${JSON.stringify({ jsonrpc: "2.0", id: "prompt", method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "Run it." }] } })}\n`;

const answered = ({ stdout }) => stdout.includes('"id":"build"');
/** The idle preload ran every step (the CLI's `preload: done`), after the first response. */
const preloaded = (streams) => answered(streams) && /^preload: done$/m.test(streams.stderr);

/**
 * One CLI run in write mode (`run.args`, `run.input` written at once, `run.files` in its agent
 * directory); its stdin ends as soon as `run.done(output)` holds, and it then exits and writes its
 * caches. `run.respond(output, cwd)` may give more input as output arrives, each text once.
 * `run.offline`: the preload opens no connection. Resolves with `undefined` when the run did its
 * work and exited cleanly, else with why not.
 */
export async function primeRun(cli, run, deadlineMs = RUN_DEADLINE_MS) {
	const home = mkdtempSync(join(tmpdir(), "atomic-build-"));
	const agentDir = join(home, "agent");
	mkdirSync(agentDir);
	for (const [file, content] of Object.entries(run.files ?? {}))
		writeFileSync(join(agentDir, file), JSON.stringify(content));
	const child = spawn(process.execPath, [cli, ...run.args], {
		cwd: home,
		env: {
			PATH: process.env.PATH,
			HOME: home,
			ATOMIC_CODING_AGENT_DIR: agentDir,
			ATOMIC_COMPILE_CACHE: "write",
			ATOMIC_DEBUG_IDLE: "1",
			...(run.offline === false ? {} : { ATOMIC_OFFLINE: "1" }),
		},
		stdio: ["pipe", "pipe", "pipe"],
	});
	const output = { stdout: "", stderr: "" };
	let finished = false;
	let timedOut = false;
	const finish = () => {
		if (finished) return;
		finished = true;
		child.stdin.end();
	};
	const deadline = setTimeout(() => {
		timedOut = true;
		child.kill("SIGKILL");
	}, deadlineMs);
	const responded = new Set();
	const onOutput = () => {
		const more = run.respond?.(output, home);
		if (more !== undefined && !responded.has(more)) {
			responded.add(more);
			child.stdin.write(more);
		}
		if (run.done(output)) finish();
	};
	child.stdout.on("data", (data) => {
		output.stdout += data;
		onOutput();
	});
	child.stderr.on("data", (data) => {
		output.stderr += data;
		onOutput();
	});
	// The CLI may exit before reading its input (a bad argument): the exit is reported, with this.
	child.stdin.on("error", (error) => {
		output.stderr += `\n(stdin: ${error.message})`;
	});
	child.stdin.write(run.input);
	const exit = await new Promise((resolve) => {
		child.on("error", (error) => resolve({ error }));
		child.on("exit", (status, signal) => resolve({ status, signal }));
	});
	clearTimeout(deadline);
	rmSync(home, { recursive: true, force: true });
	const failedStep = output.stderr.split("\n").find((line) => / failed: /.test(line));
	if (timedOut) return `it did not finish within ${deadlineMs / 1000} s\n${tail(output)}`;
	if (exit.error) return `it could not start: ${exit.error.message}`;
	if (exit.status !== 0) return `it exited with ${exit.status ?? exit.signal}\n${tail(output)}`;
	if (!run.done(output)) return `it ended before its work was done\n${tail(output)}`;
	if (failedStep) return `a preload step failed: ${failedStep}`;
	return undefined;
}

function tail({ stdout, stderr }) {
	return `stderr: ${stderr.slice(-2000)}\nstdout: ${stdout.slice(-1000)}`;
}

/** Without `baseUrl`, nothing may be sent: the preload only loads the provider. */
function modelsJson(api, baseUrl = "http://127.0.0.1:9") {
	const model = { id: "prime", name: "prime", reasoning: false, input: ["text"], contextWindow: 8192, maxTokens: 1024 };
	return { providers: { prime: { baseUrl, api, apiKey: "none", models: [model] } } };
}

/** The runs, in order, for a prime server at `baseUrl`. */
export function primeRuns(baseUrl) {
	const files = { "models.json": modelsJson("anthropic-messages", baseUrl) };
	// ACP: initialize, a session, then one tool loop in it; the tool call completed and the turn ended.
	const acpPrompted = (streams) =>
		preloaded(streams) &&
		streams.stdout.includes('"status":"completed"') &&
		streams.stdout.includes('"stopReason":"end_turn"');
	// Each request once the one before it is answered (the SDK refuses session/new before initialize is done).
	const respond = ({ stdout }, cwd) => {
		const opened = /"id":"session","result":\{[\s\S]*?"sessionId":"([^"]+)"/.exec(stdout);
		if (opened?.[1] !== undefined) return sessionPrompt(opened[1]);
		return answered({ stdout }) ? sessionNew(cwd) : undefined;
	};
	const rpcArgs = ["--mode", "rpc", "--no-session", "--model", "prime/prime"];
	// Last, RPC's tool loop, whose start-up and first prompt count most. The tool ran and the reply
	// after it came: the whole loop, not a failed request, is in the cache.
	const prompted = (streams) =>
		preloaded(streams) &&
		streams.stdout.includes('"type":"tool_execution_end"') &&
		streams.stdout.includes(PRIME_REPLY) &&
		streams.stdout.includes('"type":"agent_settled"');
	return [
		{
			name: "acp",
			args: ["--mode", "acp", "--model", "prime/prime"],
			input: INITIALIZE,
			files,
			done: acpPrompted,
			offline: false,
			respond,
		},
		...PRIMED_APIS.map((api) => ({
			name: api,
			args: rpcArgs,
			input: GET_STATE,
			files: { "models.json": modelsJson(api) },
			done: preloaded,
		})),
		{ name: "prompt", args: rpcArgs, input: `${GET_STATE}${PROMPT}`, files, done: prompted, offline: false },
	];
}

/**
 * Runs `runs` one after the other against the CLI at `cli`; a failed run is reported on stderr as a
 * warning. Resolves with the names of the runs that failed.
 */
export async function primeCompileCache(cli, runs, deadlineMs) {
	const failed = [];
	for (const run of runs) {
		const why = await primeRun(cli, run, deadlineMs);
		if (why === undefined) continue;
		failed.push(run.name);
		console.warn(
			`Warning: the code cache's ${run.name} run failed, so the chunks it covers are compiled at run time instead: ${why}`,
		);
	}
	return failed;
}

/**
 * Writes the cache for the chunks `output` (the bundler's) describes. A script compiled from a
 * cache cannot import() (Node 20), so chunks that import an external module dynamically keep none.
 */
export async function writeCompileCache(output, produced) {
	rmSync(CACHE_ROOT, { recursive: true, force: true });
	const server = await startPrimeServer();
	try {
		await primeCompileCache(resolve("dist/cli.js"), primeRuns(server.baseUrl));
	} finally {
		await server.close();
	}
	if (!existsSync(CACHE_ROOT)) return;
	// The runs wrote one directory, named as src/cli/compile-cache.ts names it.
	const dirs = readdirSync(CACHE_ROOT).map((name) => join(CACHE_ROOT, name));
	for (const chunk of output) {
		if (chunk.type !== "chunk" || !chunk.fileName.startsWith("chunks/")) continue;
		if (!chunk.dynamicImports.some((target) => !produced.has(target))) continue;
		for (const dir of dirs) rmSync(join(dir, `${chunk.fileName.slice("chunks/".length)}.bin`), { force: true });
	}
}
