import { isAscii } from "node:buffer";
import { spawn } from "node:child_process";
import {
	appendFileSync,
	cpSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	utimesSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Compiled, RECORDER } from "../support/compile-cache-recorder.js";
import { LlmServer, textReply, toolReply } from "../support/llm-server.js";
import { CLI, makeAgentDir } from "../support/rpc-process.js";

const DIST = dirname(CLI);
const CACHE = join(DIST, "compile-cache", `${process.versions.v8}-${process.arch}`);
const cleanups: (() => void)[] = [];
afterEach(() => {
	for (const cleanup of cleanups.splice(0)) cleanup();
});

function scratch(): string {
	const dir = mkdtempSync(join(tmpdir(), "atomic-compile-cache-"));
	cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
	return dir;
}

/**
 * Runs `cli` through `steps` and to its exit: each step's line is written once the previous step's
 * `until` text is on stdout, and stdin ends after the last. Resolves with stdout and what the
 * recorder saw.
 */
async function runCli(
	cli: string,
	steps: { line: string | ((stdout: string) => string); until: string }[],
	tree = makeAgentDir(),
	args: string[] = [],
	mode: "rpc" | "acp" = "rpc",
): Promise<{ stdout: string; compiled: Compiled[] }> {
	cleanups.push(() => tree.cleanup());
	const dir = scratch();
	const recorder = join(dir, "recorder.cjs");
	const record = join(dir, "record.json");
	writeFileSync(recorder, RECORDER);
	const modeArgs = mode === "rpc" ? ["--mode", "rpc", "--no-session"] : ["--mode", "acp"];
	const child = spawn(process.execPath, ["--require", recorder, cli, ...modeArgs, ...args], {
		cwd: tree.work,
		env: { PATH: process.env.PATH, HOME: tree.home, ATOMIC_CODING_AGENT_DIR: tree.agentDir, RECORD_TO: record },
		stdio: ["pipe", "pipe", "pipe"],
	});
	let stdout = "";
	let step = 0;
	child.stdout.on("data", (chunk: Buffer) => {
		stdout += chunk.toString("utf8");
		const current = steps[step];
		if (!current || !stdout.includes(current.until)) return;
		step++;
		const next = steps[step];
		if (next) child.stdin.write(typeof next.line === "string" ? next.line : next.line(stdout));
		else child.stdin.end();
	});
	const first = steps[0];
	if (first) child.stdin.write(typeof first.line === "string" ? first.line : first.line(stdout));
	else child.stdin.end();
	await new Promise((resolve) => child.on("exit", resolve));
	return { stdout, compiled: JSON.parse(readFileSync(record, "utf8")) };
}

/** Runs `cli` to its first get_state response and its exit: the response and what the recorder saw. */
async function getState(cli: string): Promise<{ answered: boolean; compiled: Compiled[] }> {
	const { stdout, compiled } = await runCli(cli, [{ line: '{"id":"s","type":"get_state"}\n', until: '"id":"s"' }]);
	const answered = stdout.split("\n").some((line) => line.includes('"id":"s"') && line.includes('"success":true'));
	return { answered, compiled };
}

const isStartupChunk = ({ file }: Compiled) => /[/\\]chunks[/\\]startup-[\w-]+\.js$/.test(file);
const isAcpChunk = ({ file }: Compiled) => /[/\\]chunks[/\\]acp-mode-[\w-]+\.js$/.test(file);

/** One JSON-RPC request line. */
const rpcLine = (id: number, method: string, params: unknown) =>
	`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`;

/** A copy of dist/ to damage. */
function distCopy(): string {
	const copy = join(scratch(), "dist");
	cpSync(DIST, copy, {
		recursive: true,
		preserveTimestamps: true,
		filter: (path) => !path.endsWith(".map") && !path.includes("/types"),
	});
	return copy;
}

function startupCache(dist: string): string {
	const dir = join(dist, "compile-cache", `${process.versions.v8}-${process.arch}`);
	const name = readdirSync(dir).find((file) => file.startsWith("startup-"));
	if (!name) throw new Error(`no start-up chunk cache in ${dir}`);
	return join(dir, name);
}

describe("the code cache of the CLI's chunks", () => {
	it("is written by the build and taken by V8 at start-up", async () => {
		expect(readdirSync(CACHE).some((name) => name.startsWith("startup-"))).toBe(true);
		const { answered, compiled } = await getState(CLI);
		expect(answered).toBe(true);
		expect(compiled.filter(isStartupChunk).map(({ rejected }) => rejected)).toEqual([false]);
		expect(compiled.every(({ rejected }) => !rejected)).toBe(true);
	});

	it("costs only the compile when V8 rejects a cache file", async () => {
		const dist = distCopy();
		writeFileSync(startupCache(dist), Buffer.from("not a code cache".repeat(64)));
		const { answered, compiled } = await getState(join(dist, "cli.js"));
		expect(answered).toBe(true);
		expect(compiled.filter(isStartupChunk).map(({ rejected }) => rejected)).toEqual([true]);
	});

	it("is not used for a chunk changed after its cache was written", async () => {
		const dist = distCopy();
		const cache = startupCache(dist);
		const chunk = join(dist, "chunks", basename(cache, ".bin"));
		const later = new Date(statSync(cache).mtimeMs + 60_000);
		utimesSync(chunk, later, later);
		const { answered, compiled } = await getState(join(dist, "cli.js"));
		expect(answered).toBe(true);
		expect(compiled.filter(isStartupChunk)).toEqual([]);
		expect(compiled.length).toBeGreaterThan(0);
	});

	it("holds the code a first tool loop runs: the prompt compiles almost nothing of the start-up chunk", async () => {
		const server = await LlmServer.start();
		cleanups.push(() => void server.close());
		server.enqueue(toolReply("bash", { command: "echo hi" }), textReply("done"));
		const { stdout, compiled } = await runCli(
			CLI,
			[
				{ line: '{"id":"s","type":"get_state"}\n', until: '"id":"s"' },
				{ line: '{"id":"p","type":"prompt","message":"run it"}\n', until: '"type":"agent_end"' },
			],
			makeAgentDir({ server }),
			["--model", "mock/mock-model"],
		);
		expect(stdout).toContain('"type":"tool_execution_end"');
		const [startup] = compiled.filter(isStartupChunk);
		expect(startup?.rejected).toBe(false);
		// Without the build's prompt run, what the tool loop compiled made the cache 16% larger.
		expect(startup?.atExit).toBeLessThan((startup?.size ?? 0) * 1.03);
	});

	it("holds the code an ACP session's first tool loop runs, in the ACP chunk and the start-up chunk", async () => {
		const server = await LlmServer.start();
		cleanups.push(() => void server.close());
		server.enqueue(toolReply("bash", { command: "echo hi" }), textReply("done"));
		const tree = makeAgentDir({ server });
		const prompt = (stdout: string) => {
			const sessionId = /"id":2,"result":\{[\s\S]*?"sessionId":"([^"]+)"/.exec(stdout)?.[1] ?? "";
			return rpcLine(3, "session/prompt", { sessionId, prompt: [{ type: "text", text: "run it" }] });
		};
		const { stdout, compiled } = await runCli(
			CLI,
			[
				{ line: rpcLine(1, "initialize", { protocolVersion: 1 }), until: '"id":1,"result"' },
				{ line: rpcLine(2, "session/new", { cwd: tree.work, mcpServers: [] }), until: '"id":2,"result"' },
				{ line: prompt, until: '"id":3,"result"' },
			],
			tree,
			["--model", "mock/mock-model"],
			"acp",
		);
		expect(stdout).toContain('"stopReason":"end_turn"');
		expect(server.requests).toHaveLength(2);
		const chunks = [...compiled.filter(isAcpChunk), ...compiled.filter(isStartupChunk)];
		expect(chunks.map(({ rejected }) => rejected)).toEqual([false, false]);
		// Without the build's ACP prompt run, the ACP chunk's cache grew by 18% here.
		for (const chunk of chunks) expect(chunk.atExit).toBeLessThan(chunk.size * 1.03);
	});

	it("serves chunks the build wrote in ASCII, and decodes one edited to hold other text as UTF-8", async () => {
		const chunks = join(DIST, "chunks");
		const scripts = readdirSync(chunks)
			.filter((name) => name.endsWith(".js"))
			.map((name) => join(chunks, name));
		for (const file of [CLI, ...scripts])
			expect({ file, ascii: isAscii(readFileSync(file)) }).toEqual({ file, ascii: true });
		// An edited start-up chunk whose cache is taken for current: V8 rejects the cache (the source
		// changed) and compiles the text the loader read, which must be the UTF-8 it holds.
		const dist = distCopy();
		const cache = startupCache(dist);
		const chunk = join(dist, "chunks", basename(cache, ".bin"));
		appendFileSync(chunk, '\nprocess.stdout.write(JSON.stringify({ type: "probe", text: "café → ✓" }) + "\\n");\n');
		const later = new Date(statSync(chunk).mtimeMs + 60_000);
		utimesSync(cache, later, later);
		const { stdout, compiled } = await runCli(join(dist, "cli.js"), [
			{ line: '{"id":"s","type":"get_state"}\n', until: '"id":"s"' },
		]);
		expect(compiled.filter(isStartupChunk).map(({ rejected }) => rejected)).toEqual([true]);
		expect(stdout).toContain('{"type":"probe","text":"café → ✓"}');
		expect(stdout).toContain('"success":true');
	});

	it("is not needed: without cache files the chunks load as usual", async () => {
		const dist = distCopy();
		rmSync(join(dist, "compile-cache"), { recursive: true });
		const { answered, compiled } = await getState(join(dist, "cli.js"));
		expect(answered).toBe(true);
		expect(compiled).toEqual([]);
	});
});
