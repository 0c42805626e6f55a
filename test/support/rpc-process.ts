/**
 * Spawns `node dist/cli.js --mode rpc` with an isolated agent dir whose models.json points at a
 * loopback model server, and speaks the protocol: LF-only framing, requests correlated by id,
 * waits on events with timeouts. Shared by every end-to-end RPC test.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { LlmServer } from "./llm-server.js";

export const CLI = resolve("dist/cli.js");

export type RpcRecord = Record<string, unknown> & { type: string };

export interface AgentDirOptions {
	server?: LlmServer;
	settings?: Record<string, unknown>;
	/** Extra providers merged into models.json. */
	providers?: Record<string, unknown>;
	contextWindow?: number;
}

/** The standard test models: `mock` (anthropic-messages) and `mockoai` (openai-completions). */
export function testProviders(server: Pick<LlmServer, "baseUrl">, contextWindow = 200_000): Record<string, unknown> {
	const models = [
		{
			id: "mock-model",
			name: "Mock Model",
			reasoning: false,
			input: ["text", "image"],
			contextWindow,
			maxTokens: 8192,
		},
		{
			id: "mock-reasoner",
			name: "Mock Reasoner",
			reasoning: true,
			input: ["text", "image"],
			contextWindow,
			maxTokens: 8192,
		},
	];
	return {
		mock: { baseUrl: server.baseUrl("anthropic-messages"), api: "anthropic-messages", apiKey: "test-key", models },
		mockoai: { baseUrl: server.baseUrl("openai-completions"), api: "openai-completions", apiKey: "test-key", models },
	};
}

/** A fresh temp tree: agent dir (models.json, settings.json), home, tmp, work dir. */
export function makeAgentDir(options: AgentDirOptions = {}): {
	root: string;
	agentDir: string;
	home: string;
	work: string;
	cleanup(): void;
} {
	const root = mkdtempSync(join(tmpdir(), "atomic-e2e-"));
	const agentDir = join(root, "agent");
	const home = join(root, "home");
	const work = join(root, "work");
	for (const dir of [agentDir, home, work, join(root, "tmp")]) mkdirSync(dir, { recursive: true });
	const providers = {
		...(options.server ? testProviders(options.server, options.contextWindow) : {}),
		...options.providers,
	};
	writeFileSync(join(agentDir, "models.json"), JSON.stringify({ providers }, null, 2));
	const settings = { retry: { enabled: true, maxRetries: 3, baseDelayMs: 50 }, ...options.settings };
	writeFileSync(join(agentDir, "settings.json"), JSON.stringify(settings, null, 2));
	return { root, agentDir, home, work, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** The environment for a child: no provider keys from the developer's shell. */
export function childEnv(agentDir: string, home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (/^(ATOMIC_|PI_|ANTHROPIC_|OPENAI_|GEMINI_|GOOGLE_)/.test(key) || key.endsWith("_API_KEY")) continue;
		env[key] = value;
	}
	return { ...env, HOME: home, ATOMIC_CODING_AGENT_DIR: agentDir, NO_COLOR: "1", ...extra };
}

export interface RpcAgentOptions {
	args?: string[];
	agentDir: string;
	home: string;
	cwd: string;
	env?: Record<string, string>;
	/** A command the agent is started through (e.g. `setpriv --reuid=…` to run it as another user). */
	launcher?: string[];
	/** The CLI to run (default dist/cli.js of this checkout). */
	cli?: string;
}

const DEFAULT_TIMEOUT = 10_000;

/** Events that describe the agent's state rather than what it did. */
export const OBSERVATION_EVENTS: ReadonlySet<string> = new Set(["state_changed", "context_usage", "heartbeat"]);

export class RpcAgent {
	readonly records: RpcRecord[] = [];
	readonly rawLines: string[] = [];
	readonly child: ChildProcessWithoutNullStreams;
	stderr = "";
	/** The bytes of a line not yet ended, as received. */
	private partial: Buffer[] = [];
	private waiters = new Set<{ check: () => boolean }>();
	private counter = 0;
	readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

	constructor(options: RpcAgentOptions) {
		const [file, ...prefix] = [...(options.launcher ?? []), process.execPath];
		this.child = spawn(file as string, [...prefix, options.cli ?? CLI, "--mode", "rpc", ...(options.args ?? [])], {
			cwd: options.cwd,
			env: childEnv(options.agentDir, options.home, options.env),
			stdio: ["pipe", "pipe", "pipe"],
		});
		this.child.stdout.on("data", (chunk: Buffer) => this.onData(chunk));
		this.child.stderr.on("data", (chunk: Buffer) => {
			this.stderr += chunk.toString("utf8");
		});
		this.child.stdin.on("error", () => undefined);
		this.exited = new Promise((resolveExit) => {
			this.child.on("exit", (code, signal) => {
				resolveExit({ code, signal });
				this.notify();
			});
		});
	}

	/** Splits stdout into lines; each byte is looked at once, however long the line. */
	private onData(chunk: Buffer): void {
		let start = 0;
		for (let newline = chunk.indexOf(0x0a); newline >= 0; newline = chunk.indexOf(0x0a, start)) {
			const piece = chunk.subarray(start, newline);
			const bytes = this.partial.length > 0 ? Buffer.concat([...this.partial, piece]) : piece;
			this.partial = [];
			const line = bytes.toString("utf8");
			this.rawLines.push(line);
			this.records.push(JSON.parse(line) as RpcRecord);
			start = newline + 1;
		}
		if (start < chunk.length) this.partial.push(chunk.subarray(start));
		this.notify();
	}

	private notify(): void {
		for (const waiter of [...this.waiters]) waiter.check();
	}

	/** Writes raw bytes to stdin. */
	sendRaw(data: string | Buffer): void {
		this.child.stdin.write(data);
	}

	send(command: Record<string, unknown>): void {
		this.sendRaw(`${JSON.stringify(command)}\n`);
	}

	nextId(prefix = "r"): string {
		this.counter += 1;
		return `${prefix}-${this.counter}`;
	}

	/** Sends a command with a fresh id (unless it has one) and resolves with its response record. */
	async request(command: Record<string, unknown>, timeout = DEFAULT_TIMEOUT): Promise<RpcRecord> {
		const id = (command.id as string | undefined) ?? this.nextId(String(command.type));
		const start = this.records.length;
		this.send({ ...command, id });
		return this.waitFor((record) => record.type === "response" && record.id === id, {
			start,
			timeout,
			what: `response to ${String(command.type)}`,
		});
	}

	/** Like request, but requires success and returns `data`. */
	async ok(command: Record<string, unknown>, timeout = DEFAULT_TIMEOUT): Promise<unknown> {
		const response = await this.request(command, timeout);
		if (response.success !== true) throw new Error(`${String(command.type)} failed: ${String(response.error)}`);
		return response.data;
	}

	/** Resolves with the first record at index >= start matching the predicate. */
	waitFor(
		predicate: (record: RpcRecord) => boolean,
		options: { start?: number; timeout?: number; what?: string } = {},
	): Promise<RpcRecord> {
		const start = options.start ?? 0;
		const timeout = options.timeout ?? DEFAULT_TIMEOUT;
		return new Promise((resolveRecord, reject) => {
			let index = start;
			const waiter = {
				check: () => {
					for (; index < this.records.length; index++) {
						const record = this.records[index] as RpcRecord;
						if (predicate(record)) {
							done();
							resolveRecord(record);
							return true;
						}
					}
					if (this.child.exitCode !== null || this.child.signalCode !== null) {
						done();
						reject(
							new Error(
								`agent exited while waiting for ${options.what ?? "a record"}; stderr: ${this.stderr.slice(-2000)}`,
							),
						);
						return true;
					}
					return false;
				},
			};
			const timer = setTimeout(() => {
				done();
				reject(
					new Error(
						`timed out after ${timeout} ms waiting for ${options.what ?? "a record"}; stderr: ${this.stderr.slice(-2000)}`,
					),
				);
			}, timeout);
			const done = () => {
				clearTimeout(timer);
				this.waiters.delete(waiter);
			};
			this.waiters.add(waiter);
			waiter.check();
		});
	}

	waitForEvent(
		type: string,
		predicate: (record: RpcRecord) => boolean = () => true,
		start = 0,
		timeout = DEFAULT_TIMEOUT,
	): Promise<RpcRecord> {
		return this.waitFor((record) => record.type === type && predicate(record), { start, timeout, what: type });
	}

	/** Sends a prompt, requires success, and resolves with the agent_settled record of that run. */
	async prompt(
		message: string,
		extra: Record<string, unknown> = {},
		timeout = 20_000,
	): Promise<{ start: number; settled: RpcRecord }> {
		const start = this.records.length;
		const response = await this.request({ type: "prompt", message, ...extra }, timeout);
		if (response.success !== true) throw new Error(`prompt rejected: ${String(response.error)}`);
		const settled = await this.waitForEvent("agent_settled", () => true, start, timeout);
		return { start, settled };
	}

	/**
	 * The records from `start` on, of one type when given. Without a type, the events that only
	 * describe the agent (state_changed, context_usage, heartbeat) are left out, so a test can
	 * compare the sequence of what happened; their own tests ask for them by type.
	 */
	since(start: number, type?: string): RpcRecord[] {
		return this.records
			.slice(start)
			.filter((record) => (type === undefined ? !OBSERVATION_EVENTS.has(record.type) : record.type === type));
	}

	mark(): number {
		return this.records.length;
	}

	closeStdin(): void {
		this.child.stdin.end();
	}

	kill(signal: NodeJS.Signals = "SIGKILL"): void {
		if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
	}
}
