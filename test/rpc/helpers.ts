/**
 * Shared pieces of the end-to-end RPC tests: one loopback model server per file, agents started
 * with an isolated agent dir and killed after every test, and readers for what the model server
 * received and what the session files hold.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import { outputDefinitionName } from "../../src/rpc/protocol/schema-defs.js";
import { typeboxErrors } from "../protocol/schema-check.js";
import { type AnthropicBody, messageLines } from "../support/anthropic-body.js";
import { LlmServer, type RecordedRequest } from "../support/llm-server.js";
import { makeAgentDir, RpcAgent, type RpcRecord } from "../support/rpc-process.js";

export type AgentDirs = ReturnType<typeof makeAgentDir>;

export interface StartOptions {
	settings?: Record<string, unknown>;
	/** Replaces the standard mock providers in models.json. */
	providers?: Record<string, unknown>;
	/** Persist sessions under `<root>/sessions` (default: `--no-session`). */
	sessions?: boolean;
	args?: string[];
	env?: Record<string, string>;
	/** Runs before the process starts: write prompt templates, skills, auth.json. */
	prepare?(dirs: AgentDirs): void;
	/** False: return at once, before the `ready` event (default true). */
	awaitReady?: boolean;
}

export interface StartedAgent {
	agent: RpcAgent;
	dirs: AgentDirs;
	/** Where sessions go when `sessions` is set. */
	sessionDir: string;
	/** The `ready` event (`{type: "pending"}` when not awaited). */
	ready: RpcRecord;
}

const started: StartedAgent[] = [];

/** Starts `atomic --mode rpc` against the file's model server and waits for its `ready` event. */
export async function startAgent(server: LlmServer | undefined, options: StartOptions = {}): Promise<StartedAgent> {
	return launch(server, options, started);
}

async function launch(
	server: LlmServer | undefined,
	options: StartOptions,
	into: StartedAgent[],
): Promise<StartedAgent> {
	const dirs = options.providers
		? makeAgentDir({ settings: options.settings, providers: options.providers })
		: makeAgentDir({ server, settings: options.settings });
	const sessionDir = join(dirs.root, "sessions");
	options.prepare?.(dirs);
	const sessionArgs = options.sessions ? ["--session-dir", sessionDir] : ["--no-session"];
	const agent = new RpcAgent({
		args: [...sessionArgs, ...(options.args ?? [])],
		agentDir: dirs.agentDir,
		home: dirs.home,
		cwd: dirs.work,
		// Spill files of truncated bash output stay inside the test's tree.
		env: { TMPDIR: join(dirs.root, "tmp"), ...options.env },
	});
	const entry: StartedAgent = { agent, dirs, sessionDir, ready: { type: "pending" } };
	into.push(entry);
	// Generous: several agents start at once when test files run in parallel on a small machine.
	if (options.awaitReady !== false) entry.ready = await agent.waitForEvent("ready", () => true, 0, 20_000);
	return entry;
}

/** Every record an agent wrote that the RPC schema does not describe, with the first complaints. */
function schemaViolations(agent: RpcAgent): string[] {
	return recordViolations(agent.records);
}

/** The records the RPC schema does not describe, each with its first complaints. */
export function recordViolations(records: readonly RpcRecord[]): string[] {
	const violations: string[] = [];
	for (const record of records) {
		const errors = typeboxErrors(outputDefinitionName(record) ?? "OutputRecord", record);
		if (errors.length > 0)
			violations.push(`${JSON.stringify(record).slice(0, 300)}\n  ${errors.slice(0, 3).join("\n  ")}`);
	}
	return violations;
}

/**
 * Kills every agent this file started and removes their trees. Then checks every record they
 * wrote against the RPC schema, so that each end-to-end test also proves the schema right.
 */
export async function stopAgents(): Promise<void> {
	await stopEntries(started.splice(0));
}

async function stopEntries(entries: StartedAgent[]): Promise<void> {
	const violations: string[] = [];
	for (const entry of entries) {
		entry.agent.kill();
		await entry.agent.exited;
		entry.dirs.cleanup();
		violations.push(...schemaViolations(entry.agent));
	}
	if (violations.length > 0) {
		throw new Error(
			`${violations.length} output record(s) do not match the RPC schema:\n${violations.slice(0, 5).join("\n")}`,
		);
	}
}

/**
 * One agent for the tests of a describe block that need a live process but not a fresh one (input
 * it refuses, reads that change nothing): started before the first of them, stopped after the
 * last, and its records checked against the schema like every other agent's. Call inside the
 * describe block, after useRpcHarness.
 */
export function useSharedAgent(harness: { readonly server: LlmServer }, options: StartOptions = {}): StartedAgent {
	const shared: StartedAgent[] = [];
	beforeAll(async () => {
		await launch(harness.server, options, shared);
	});
	afterAll(async () => {
		await stopEntries(shared.splice(0));
	});
	const current = (): StartedAgent => {
		const entry = shared[0];
		if (!entry) throw new Error("the shared agent is not started yet");
		return entry;
	};
	return {
		get agent() {
			return current().agent;
		},
		get dirs() {
			return current().dirs;
		},
		get sessionDir() {
			return current().sessionDir;
		},
		get ready() {
			return current().ready;
		},
	};
}

/** Registers the per-file lifecycle: a model server for the file, agents killed after each test. */
export function useRpcHarness(): { readonly server: LlmServer } {
	let server: LlmServer | undefined;
	beforeAll(async () => {
		server = await LlmServer.start();
	});
	afterEach(async () => {
		await stopAgents();
		server?.reset();
	});
	afterAll(async () => {
		await server?.close();
	});
	return {
		get server(): LlmServer {
			if (!server) throw new Error("the model server is not started yet");
			return server;
		},
	};
}

/** Every response record carrying this id. */
export function responsesWithId(agent: RpcAgent, id: string | number): RpcRecord[] {
	return agent.records.filter((record) => record.type === "response" && record.id === id);
}

/** The position of the first record matching the predicate at or after `start`, or -1. */
export function indexOf(agent: RpcAgent, predicate: (record: RpcRecord) => boolean, start = 0): number {
	for (let index = start; index < agent.records.length; index++) {
		if (predicate(agent.records[index] as RpcRecord)) return index;
	}
	return -1;
}

export function isResponseTo(id: string | number): (record: RpcRecord) => boolean {
	return (record) => record.type === "response" && record.id === id;
}

// ------------------------------------------------------------------ what the model received

export function anthropicBody(request: RecordedRequest | undefined): AnthropicBody {
	if (!request) throw new Error("the model server received no such request");
	return request.body as AnthropicBody;
}

/** Each message of an Anthropic request as `role: text` (text blocks joined; other blocks as `[type]`). */
export function transcript(request: RecordedRequest | undefined): string[] {
	return messageLines(anthropicBody(request));
}

// ------------------------------------------------------------------ files and processes

/** The records of a JSONL file. */
export function readJsonl(path: string): Record<string, unknown>[] {
	return readFileSync(path, "utf8")
		.split("\n")
		.filter((line) => line.length > 0)
		.map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The `.jsonl` files in a directory (none when it does not exist). */
export function jsonlFiles(directory: string): string[] {
	if (!existsSync(directory)) return [];
	return readdirSync(directory)
		.filter((name) => name.endsWith(".jsonl"))
		.map((name) => join(directory, name));
}

/** A shell command that waits until `path` exists: a gate the test opens by creating the file. */
export function waitForFileCommand(path: string): string {
	return `while [ ! -e '${path}' ]; do sleep 0.02; done`;
}

/** Process ids whose command line contains `needle` (scans /proc). */
export function processesMatching(needle: string): number[] {
	const found: number[] = [];
	for (const name of readdirSync("/proc")) {
		if (!/^\d+$/.test(name)) continue;
		let commandLine: string;
		try {
			commandLine = readFileSync(join("/proc", name, "cmdline"), "utf8").replaceAll("\0", " ");
		} catch (error) {
			// The process ended between the listing and the read.
			if (error instanceof Error && "code" in error && (error.code === "ENOENT" || error.code === "ESRCH")) continue;
			throw error;
		}
		if (commandLine.includes(needle)) found.push(Number(name));
	}
	return found;
}

/** Resolves once the agent's stderr contains `text`. */
export function waitForStderr(agent: RpcAgent, text: string, timeout = 10_000): Promise<void> {
	return new Promise((resolve, reject) => {
		const check = () => {
			if (!agent.stderr.includes(text)) return;
			clearTimeout(timer);
			agent.child.stderr.off("data", check);
			resolve();
		};
		const timer = setTimeout(() => {
			agent.child.stderr.off("data", check);
			reject(new Error(`timed out waiting for ${JSON.stringify(text)} on stderr; got: ${agent.stderr.slice(-2000)}`));
		}, timeout);
		// Registered after RpcAgent's own listener, so `agent.stderr` already holds the chunk.
		agent.child.stderr.on("data", check);
		check();
	});
}

/** A unique token for command lines and texts (so /proc scans and searches find only this test's). */
export function uniqueToken(prefix: string): string {
	return `${prefix}${process.pid}${Math.floor(Math.random() * 1e9)}`;
}

/** Resolves once the agent's stderr contains `text`. */
export function stderrShows(agent: RpcAgent, text: string, timeoutMs = 20_000): Promise<void> {
	return new Promise((resolve, reject) => {
		const check = () => {
			if (!agent.stderr.includes(text)) return;
			done();
			resolve();
		};
		const timer = setTimeout(() => {
			done();
			reject(new Error(`stderr never showed ${JSON.stringify(text)}: ${agent.stderr.slice(-1000)}`));
		}, timeoutMs);
		const done = () => {
			clearTimeout(timer);
			agent.child.stderr.off("data", onData);
		};
		// The agent's own listener appends to `stderr` first (it was added first).
		const onData = () => check();
		agent.child.stderr.on("data", onData);
		check();
	});
}
