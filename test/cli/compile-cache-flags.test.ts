import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Compiled, RECORDER } from "../support/compile-cache-recorder.js";
import { LlmServer, textReply, toolReply } from "../support/llm-server.js";
import { CLI, makeAgentDir } from "../support/rpc-process.js";

// V8 stamps a code cache with a hash of its flags and rejects it under other ones. The process that
// runs the idle preload and caps its young generation (a V8 flag set at run time) must still have
// every chunk's cache accepted: the chunks are compiled under V8's default flags.

const CHUNKS = join(dirname(CLI), "chunks");
const CACHE = join(dirname(CLI), "compile-cache", `${process.versions.v8}-${process.arch}`);

/** Grows V8's young generation to the heap tuning's cap at start-up: a burst of surviving objects. */
const GROW_YOUNG_GENERATION = `
const v8 = require("node:v8");
const newSpace = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space").space_size;
let keep = [];
for (let round = 0; round < 500 && newSpace() < 8 * 1024 * 1024; round++) {
	for (let i = 0; i < 20000; i++) keep.push({ i, list: [i] });
	if (keep.length > 200000) keep = [];
}
keep = undefined;
`;

const cleanups: (() => void)[] = [];
afterEach(() => {
	for (const cleanup of cleanups.splice(0)) cleanup();
});

describe("the code cache in a process that changed V8's flags", () => {
	it("is accepted for every chunk after the idle preload, the heap cap and a tool loop", async () => {
		const server = await LlmServer.start();
		cleanups.push(() => void server.close());
		const tree = makeAgentDir({ server });
		cleanups.push(() => tree.cleanup());
		const dir = mkdtempSync(join(tmpdir(), "atomic-cache-flags-"));
		cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
		const recorder = join(dir, "recorder.cjs");
		const record = join(dir, "record.json");
		writeFileSync(recorder, `${RECORDER}\n${GROW_YOUNG_GENERATION}`);
		const child = spawn(process.execPath, ["--require", recorder, CLI, "--mode", "rpc", "--no-session"], {
			cwd: tree.work,
			env: {
				PATH: process.env.PATH,
				HOME: tree.home,
				ATOMIC_CODING_AGENT_DIR: tree.agentDir,
				RECORD_TO: record,
				ATOMIC_DEBUG_IDLE: "1",
				ATOMIC_DEBUG_COMPILE_CACHE: "1",
			},
			stdio: ["pipe", "pipe", "pipe"],
		});
		let stdout = "";
		let stderr = "";
		const waiters: { test: () => boolean; resolve: () => void }[] = [];
		const check = () => {
			for (const waiter of waiters.splice(0)) {
				if (waiter.test()) waiter.resolve();
				else waiters.push(waiter);
			}
		};
		const until = (test: () => boolean) =>
			new Promise<void>((resolve) => {
				waiters.push({ test, resolve });
				check();
			});
		child.stdout.on("data", (chunk: Buffer) => {
			stdout += chunk.toString("utf8");
			check();
		});
		child.stderr.on("data", (chunk: Buffer) => {
			stderr += chunk.toString("utf8");
			check();
		});
		const exited = new Promise((resolve) => child.on("exit", resolve));

		child.stdin.write('{"id":"s","type":"get_state"}\n');
		await until(() => stderr.includes("preload: done") && stderr.includes("heap: young generation capped"));
		server.enqueue(toolReply("bash", { command: "echo hi" }), textReply("done"));
		child.stdin.write('{"id":"p","type":"prompt","message":"run it"}\n');
		await until(() => stdout.includes('"type":"agent_settled"'));
		child.stdin.end();
		await exited;

		// What the process loaded: every cache it compiled with was taken, the provider's among them.
		const compiled: Compiled[] = JSON.parse(readFileSync(record, "utf8"));
		expect(compiled.filter(({ rejected }) => rejected).map(({ file }) => file)).toEqual([]);
		expect(compiled.some(({ file }) => /anthropic-messages-[\w-]+\.js$/.test(file))).toBe(true);
		// Every chunk with a cache file, compiled at exit as the loader would compile it then.
		const verdicts = new Map(
			[...stderr.matchAll(/^compile-cache: (\S+) (\w+)$/gm)].map((match) => [match[1], match[2]] as const),
		);
		const cached = readdirSync(CACHE).map((name) => name.replace(/\.bin$/, ""));
		expect(cached.length).toBeGreaterThan(5);
		for (const chunk of cached) expect([chunk, verdicts.get(chunk)]).toEqual([chunk, "accepted"]);
		const chunks = readdirSync(CHUNKS).filter((name) => name.endsWith(".js"));
		expect([...verdicts.keys()].sort()).toEqual(chunks.sort());
	});
});
