// Writes dist/compile-cache (see src/cli/compile-cache.ts and docs/architecture.md "The bundle"):
// the CLI runs in write mode in ACP mode through initialize, a session and one tool loop prompt,
// then in RPC mode, once per API below, through start-up and the idle preload (the SDK, its HTTP
// client, a canned reply, a bash spawn), and last once more with a tool loop prompt. The prompts
// go to a loopback server (prime-server.mjs); nothing leaves the machine. Each run starts from the
// caches the runs before it wrote and writes, as it exits, the code of the chunks it loaded with
// every function that ran or came from those caches.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PRIME_REPLY, startPrimeServer } from "./prime-server.mjs";

const PRIMED_APIS = ["anthropic-messages", "openai-completions", "openai-responses"];
/** The quiet time after the last preload step after which the preload is taken to be done. */
const PRELOAD_QUIET_MS = 1500;
const RUN_TIMEOUT_MS = 30_000;
const CACHE_ROOT = join("dist", "compile-cache");

const INITIALIZE = `${JSON.stringify({ jsonrpc: "2.0", id: "build", method: "initialize", params: { protocolVersion: 1 } })}\n`;
const GET_STATE = '{"type":"get_state","id":"build"}\n';
const PROMPT = '{"type":"prompt","id":"prompt","message":"Run it."}\n';

/** ACP: the session/new request for a working directory, and the prompt for the session it opened. */
const sessionNew = (cwd) =>
	`${JSON.stringify({ jsonrpc: "2.0", id: "session", method: "session/new", params: { cwd, mcpServers: [] } })}\n`;
const sessionPrompt = (sessionId) =>
	`${JSON.stringify({ jsonrpc: "2.0", id: "prompt", method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "Run it." }] } })}\n`;

/**
 * One CLI run in write mode; its stdin ends once its output has been quiet for a while and
 * `done(output)` holds. `input` is written at once; `respond(output, cwd)` may give more input as
 * output arrives (cwd: the run's working directory), each text once. `offline`: the preload
 * opens no connection (there is no server to open it to).
 */
async function run(name, args, input, agentFiles, done, { offline = true, respond } = {}) {
	const home = mkdtempSync(join(tmpdir(), "atomic-build-"));
	const agentDir = join(home, "agent");
	mkdirSync(agentDir);
	for (const [file, content] of Object.entries(agentFiles))
		writeFileSync(join(agentDir, file), JSON.stringify(content));
	const child = spawn(process.execPath, [resolve("dist/cli.js"), ...args], {
		cwd: home,
		env: {
			PATH: process.env.PATH,
			HOME: home,
			ATOMIC_CODING_AGENT_DIR: agentDir,
			ATOMIC_COMPILE_CACHE: "write",
			ATOMIC_DEBUG_IDLE: "1",
			...(offline ? { ATOMIC_OFFLINE: "1" } : {}),
		},
		stdio: ["pipe", "pipe", "pipe"],
	});
	const output = { stdout: "", stderr: "" };
	let quiet;
	const finish = () => child.stdin.end();
	const deadline = setTimeout(finish, RUN_TIMEOUT_MS);
	const check = () => {
		clearTimeout(quiet);
		quiet = setTimeout(() => done(output) && finish(), PRELOAD_QUIET_MS);
	};
	const responded = new Set();
	child.stdout.on("data", (data) => {
		output.stdout += data;
		const more = respond?.(output, home);
		if (more !== undefined && !responded.has(more)) {
			responded.add(more);
			child.stdin.write(more);
		}
		check();
	});
	child.stderr.on("data", (data) => {
		output.stderr += data;
		check();
	});
	child.stdin.write(input);
	const status = await new Promise((resolve) => child.on("exit", resolve));
	clearTimeout(deadline);
	clearTimeout(quiet);
	rmSync(home, { recursive: true, force: true });
	const failed = output.stderr.split("\n").some((line) => / failed: /.test(line));
	if (status !== 0 || !done(output) || failed) {
		console.error(
			`writing the code cache (${name}) failed (exit ${status}):\n${output.stderr}\n${output.stdout.slice(-3000)}`,
		);
		process.exit(1);
	}
}

/** Without `baseUrl`, nothing may be sent: the preload answers its own requests (a loopback server, a canned stream). */
function modelsJson(api, baseUrl = "http://127.0.0.1:9") {
	const model = { id: "prime", name: "prime", reasoning: false, input: ["text"], contextWindow: 8192, maxTokens: 1024 };
	return { providers: { prime: { baseUrl, api, apiKey: "none", models: [model] } } };
}

/**
 * Writes the cache for the chunks `output` (the bundler's) describes. A script compiled from a
 * cache cannot import() (Node 20), so chunks that import an external module dynamically keep none.
 */
export async function writeCompileCache(output, produced) {
	rmSync(CACHE_ROOT, { recursive: true, force: true });
	const answered = ({ stdout }) => stdout.includes('"id":"build"');
	const preloaded = (streams) => answered(streams) && /^preload: /m.test(streams.stderr);
	// The prompts go to a loopback server: the caches then hold a first prompt's path too (the agent
	// loop, the bash tool, the events and, for ACP, their session/update notifications), which a first
	// prompt would compile. Online: the preload's connection to the server is opened too.
	const server = await startPrimeServer();
	try {
		const files = { "models.json": modelsJson("anthropic-messages", server.baseUrl) };
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
		const acpArgs = ["--mode", "acp", "--model", "prime/prime"];
		await run("acp", acpArgs, INITIALIZE, files, acpPrompted, { offline: false, respond });
		const args = ["--mode", "rpc", "--no-session", "--model", "prime/prime"];
		for (const api of PRIMED_APIS) await run(api, args, GET_STATE, { "models.json": modelsJson(api) }, preloaded);
		// Last, RPC's tool loop, whose start-up and first prompt count most. The tool ran and the reply
		// after it came: the whole loop, not a failed request, is in the cache.
		const prompted = (streams) =>
			preloaded(streams) &&
			streams.stdout.includes('"type":"tool_execution_end"') &&
			streams.stdout.includes(PRIME_REPLY) &&
			streams.stdout.includes('"type":"agent_end"');
		await run("prompt", args, `${GET_STATE}${PROMPT}`, files, prompted, { offline: false });
	} finally {
		await server.close();
	}
	// The runs wrote one directory, named as src/cli/compile-cache.ts names it.
	const dirs = readdirSync(CACHE_ROOT).map((name) => join(CACHE_ROOT, name));
	for (const chunk of output) {
		if (chunk.type !== "chunk" || !chunk.fileName.startsWith("chunks/")) continue;
		if (!chunk.dynamicImports.some((target) => !produced.has(target))) continue;
		for (const dir of dirs) rmSync(join(dir, `${chunk.fileName.slice("chunks/".length)}.bin`), { force: true });
	}
}
