/**
 * Shared pieces of the RpcClient tests: one loopback model server per file, clients that spawn the
 * built CLI (`node dist/cli.js --mode rpc`) with an isolated agent dir, closed after every test,
 * and a spy that fails a test when anything rejects or throws unhandled.
 */
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import { RpcClient, type RpcClientOptions } from "../../src/index.js";
import { LlmServer } from "../support/llm-server.js";
import { CLI, childEnv, makeAgentDir } from "../support/rpc-process.js";

export type AgentDirs = ReturnType<typeof makeAgentDir>;

export interface ClientStartOptions {
	settings?: Record<string, unknown>;
	/** Replaces the standard mock providers in models.json. */
	providers?: Record<string, unknown>;
	/** Persist sessions under `<root>/sessions` (default: `--no-session`). */
	sessions?: boolean;
	args?: string[];
	/** Runs before the process starts (write files into the tree). */
	prepare?(dirs: AgentDirs): void;
	/** Client options merged over the defaults. */
	client?: RpcClientOptions;
	/** False: return the client unstarted. */
	start?: boolean;
}

export interface StartedClient {
	client: RpcClient;
	dirs: AgentDirs;
	sessionDir: string;
	/** Everything the client reported through onError. */
	errors: Error[];
}

/** Every client a test made, with what removes its files. */
const started: ClientEntry[] = [];

interface ClientEntry {
	client: RpcClient;
	cleanup(): void;
}

/** A client for the built CLI against the file's model server (started unless `start: false`). */
export function startClient(server: LlmServer | undefined, options: ClientStartOptions = {}): Promise<StartedClient> {
	return launchClient(server, options, started);
}

/**
 * One client for the tests of a describe block whose commands change nothing another of them
 * reads: started before the first of them, stopped after the last. Call inside the describe
 * block, after useClientHarness.
 */
export function useSharedClient(
	harness: { readonly server: LlmServer },
	options: ClientStartOptions = {},
): StartedClient {
	const entries: ClientEntry[] = [];
	let shared: StartedClient | undefined;
	beforeAll(async () => {
		shared = await launchClient(harness.server, options, entries);
	});
	afterAll(async () => {
		await stopEntries(entries.splice(0));
	});
	const current = (): StartedClient => {
		if (!shared) throw new Error("the shared client is not started yet");
		return shared;
	};
	return {
		get client() {
			return current().client;
		},
		get dirs() {
			return current().dirs;
		},
		get sessionDir() {
			return current().sessionDir;
		},
		get errors() {
			return current().errors;
		},
	};
}

async function launchClient(
	server: LlmServer | undefined,
	options: ClientStartOptions,
	into: ClientEntry[],
): Promise<StartedClient> {
	const dirs = options.providers
		? makeAgentDir({ settings: options.settings, providers: options.providers })
		: makeAgentDir({ server, settings: options.settings });
	const sessionDir = join(dirs.root, "sessions");
	options.prepare?.(dirs);
	const errors: Error[] = [];
	const client = new RpcClient({
		cliPath: CLI,
		cwd: dirs.work,
		env: childEnv(dirs.agentDir, dirs.home, { TMPDIR: join(dirs.root, "tmp") }),
		args: [...(options.sessions ? ["--session-dir", sessionDir] : ["--no-session"]), ...(options.args ?? [])],
		onError: (error) => errors.push(error),
		...options.client,
	});
	const entry = { client, dirs, sessionDir, errors };
	into.push({ client, cleanup: dirs.cleanup });
	if (options.start !== false) await client.start();
	return entry;
}

/** Kills every client's process this file started and removes their trees. */
function stopClients(): Promise<void> {
	return stopEntries(started.splice(0));
}

async function stopEntries(entries: ClientEntry[]): Promise<void> {
	for (const entry of entries) {
		const pid = entry.client.pid;
		// Never spawned (or failed to spawn): close() settles at once.
		if (pid === undefined) await entry.client.close();
		else {
			if (!(await settledWithin(entry.client.exited, 0))) process.kill(pid, "SIGKILL");
			await entry.client.exited;
		}
		entry.cleanup();
	}
}

async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
	let timer: ReturnType<typeof setTimeout> | undefined;
	const result = await Promise.race([
		promise.then(() => true),
		new Promise<boolean>((resolve) => {
			timer = setTimeout(() => resolve(false), ms);
		}),
	]);
	clearTimeout(timer);
	return result;
}

/**
 * Registers the per-file lifecycle: a model server, clients killed after each test, and a check
 * that nothing rejected or threw unhandled during the test.
 */
export function useClientHarness(): { readonly server: LlmServer; readonly unhandled: unknown[] } {
	let server: LlmServer | undefined;
	const unhandled: unknown[] = [];
	const record = (error: unknown) => unhandled.push(error);
	beforeAll(async () => {
		server = await LlmServer.start();
		process.on("unhandledRejection", record);
		process.on("uncaughtException", record);
	});
	beforeEach(() => {
		unhandled.length = 0;
	});
	afterEach(async () => {
		await stopClients();
		server?.reset();
		expect(unhandled).toEqual([]);
	});
	afterAll(async () => {
		process.off("unhandledRejection", record);
		process.off("uncaughtException", record);
		await server?.close();
	});
	return {
		get server(): LlmServer {
			if (!server) throw new Error("the model server is not started yet");
			return server;
		},
		unhandled,
	};
}

/** Resolves with the first event of this type the client reports (registered now). */
export function nextEvent<T extends string>(
	client: RpcClient,
	type: T,
): Promise<Extract<Parameters<Parameters<RpcClient["onEvent"]>[0]>[0], { type: T }>> {
	return new Promise((resolve) => {
		const stop = client.onEvent((event) => {
			if (event.type !== type) return;
			stop();
			resolve(event as Extract<typeof event, { type: T }>);
		});
	});
}

/**
 * A stand-in for the CLI: a Node script that prints a ready event (of this protocol version) and
 * then runs `body`. For behaviour the real agent cannot be made to show (ignoring signals,
 * malformed output).
 */
export function fakeAgent(body: string, options: RpcClientOptions = {}, protocolVersion = 1): RpcClient {
	const ready = JSON.stringify({ type: "ready", version: "0.0.0", protocolVersion, pid: 0, capabilities: [] });
	const script = `process.stdout.write(${JSON.stringify(`${ready}\n`)});\n${body}`;
	const client = new RpcClient({ command: process.execPath, commandArgs: ["-e", script, "--"], ...options });
	started.push({ client, cleanup: () => undefined });
	return client;
}
