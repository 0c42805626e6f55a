/**
 * Drives `node dist/cli.js --mode acp` with the official SDK's client-side connection: the SDK
 * validates every notification the agent sends and drops what does not match the schema, so a
 * test that finds an update here proves it was valid ACP. The client answers file, terminal,
 * permission and elicitation requests as each test configures it, and records all it received.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import {
	type ClientCapabilities,
	type ClientConnection,
	type ClientContext,
	type CreateElicitationRequest,
	type CreateElicitationResponse,
	client,
	type InitializeResponse,
	ndJsonStream,
	RequestError,
	type RequestPermissionRequest,
	type RequestPermissionResponse,
	type SessionNotification,
	type SessionUpdate,
} from "@agentclientprotocol/sdk";
import { readStdin } from "../../src/acp/stdio.js";
import { CLI, childEnv } from "./rpc-process.js";

export interface AcpClientOptions {
	agentDir: string;
	home: string;
	cwd: string;
	args?: string[];
	env?: Record<string, string>;
	/** Files the client holds (its editor buffers), by absolute path: offered as fs/* when given. */
	files?: Map<string, string>;
	/** Which of fs/read_text_file and fs/write_text_file are offered with `files` (default both). */
	offerFs?: { readTextFile: boolean; writeTextFile: boolean };
	/** Offer `terminal/*`: commands run here, as child processes of the test. */
	terminal?: boolean;
	/** Extra client capabilities (notices, compaction, elicitation). */
	capabilities?: ClientCapabilities;
	/** Answers `session/request_permission`; default: cancelled. */
	onPermission?(request: RequestPermissionRequest): RequestPermissionResponse | Promise<RequestPermissionResponse>;
	/** Answers `elicitation/create`; default: cancel. */
	onElicitation?(request: CreateElicitationRequest): CreateElicitationResponse | Promise<CreateElicitationResponse>;
}

interface LocalTerminal {
	output: string;
	exit: Promise<{ exitCode: number | null; signal: string | null }>;
	kill(): void;
}

const DEFAULT_TIMEOUT = 15_000;

export class AcpTestClient {
	readonly child: ChildProcessWithoutNullStreams;
	readonly connection: ClientConnection;
	readonly notifications: SessionNotification[] = [];
	readonly permissionRequests: RequestPermissionRequest[] = [];
	readonly fsRequests: { method: string; path: string }[] = [];
	readonly terminalCommands: string[] = [];
	stderr = "";
	/** Every line the agent wrote to stdout, as written (to check that only protocol messages go there). */
	readonly stdoutLines: string[] = [];
	readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
	private readonly terminals = new Map<string, LocalTerminal>();
	private readonly waiters = new Set<() => void>();

	constructor(private readonly options: AcpClientOptions) {
		this.child = spawn(process.execPath, [CLI, "--mode", "acp", ...(options.args ?? [])], {
			cwd: options.cwd,
			env: childEnv(options.agentDir, options.home, options.env),
			stdio: ["pipe", "pipe", "pipe"],
		});
		this.child.stderr.on("data", (chunk: Buffer) => {
			this.stderr += chunk.toString("utf8");
		});
		let partial = "";
		this.child.stdout.on("data", (chunk: Buffer) => {
			const lines = (partial + chunk.toString("utf8")).split("\n");
			partial = lines.pop() ?? "";
			this.stdoutLines.push(...lines);
		});
		this.child.stdin.on("error", () => undefined);
		this.exited = new Promise((resolve) => this.child.on("exit", (code, signal) => resolve({ code, signal })));
		const stdin = this.child.stdin;
		const output = new WritableStream<Uint8Array>({
			write: (chunk) => new Promise<void>((resolve) => stdin.write(chunk, () => resolve())),
			close: () => new Promise<void>((resolve) => stdin.end(resolve)),
		});
		this.connection = this.app().connect(ndJsonStream(output, readStdin(this.child.stdout)));
	}

	get agent(): ClientContext {
		return this.connection.agent;
	}

	async initialize(capabilities: ClientCapabilities = {}, protocolVersion = 1): Promise<InitializeResponse> {
		const fs = this.options.files ? (this.options.offerFs ?? { readTextFile: true, writeTextFile: true }) : undefined;
		const clientCapabilities: ClientCapabilities = { ...this.options.capabilities, ...capabilities };
		if (fs) clientCapabilities.fs = fs;
		if (this.options.terminal) clientCapabilities.terminal = true;
		return this.agent.request("initialize", {
			protocolVersion,
			clientCapabilities,
			clientInfo: { name: "atomic-tests", version: "1" },
		});
	}

	/** Initializes and opens a session in `cwd`; its id. */
	async newSession(cwd = this.options.cwd): Promise<string> {
		const response = await this.agent.request("session/new", { cwd, mcpServers: [] });
		return response.sessionId;
	}

	updates(sessionId: string): SessionUpdate[] {
		return this.notifications.filter((item) => item.sessionId === sessionId).map((item) => item.update);
	}

	/** The text of every update of `kind` (message or thought chunks) for the session. */
	text(sessionId: string, kind: "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk"): string {
		return this.updates(sessionId)
			.flatMap((update) =>
				update.sessionUpdate === kind && update.content.type === "text" ? [update.content.text] : [],
			)
			.join("");
	}

	/** Resolves with the first update (at index >= start) of the session that matches. */
	waitForUpdate(
		sessionId: string,
		predicate: (update: SessionUpdate) => boolean,
		what = "update",
		timeout = DEFAULT_TIMEOUT,
	): Promise<SessionUpdate> {
		return new Promise((resolve, reject) => {
			const check = () => {
				const found = this.updates(sessionId).find(predicate);
				if (!found) return;
				finish();
				resolve(found);
			};
			const timer = setTimeout(() => {
				finish();
				reject(new Error(`timed out waiting for ${what}; stderr:\n${this.stderr.slice(-2000)}`));
			}, timeout);
			const finish = () => {
				clearTimeout(timer);
				this.waiters.delete(check);
			};
			this.waiters.add(check);
			check();
		});
	}

	/** Ends stdin (the agent's EOF) and waits for the process to exit. */
	async close(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
		this.child.stdin.end();
		return this.exited;
	}

	kill(): void {
		if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
		for (const terminal of this.terminals.values()) terminal.kill();
	}

	private app() {
		const files = this.options.files;
		let app = client({ name: "atomic-tests" })
			.onNotification("session/update", ({ params }) => {
				this.notifications.push(params);
				for (const waiter of [...this.waiters]) waiter();
			})
			.onRequest("session/request_permission", async ({ params }) => {
				this.permissionRequests.push(params);
				return this.options.onPermission ? this.options.onPermission(params) : { outcome: { outcome: "cancelled" } };
			})
			.onRequest("elicitation/create", async ({ params }) =>
				this.options.onElicitation ? this.options.onElicitation(params) : { action: "cancel" },
			);
		if (files) {
			app = app
				.onRequest("fs/read_text_file", ({ params }) => {
					this.fsRequests.push({ method: "read", path: params.path });
					const content = files.get(params.path);
					if (content === undefined) throw RequestError.resourceNotFound(params.path);
					return { content };
				})
				.onRequest("fs/write_text_file", ({ params }) => {
					this.fsRequests.push({ method: "write", path: params.path });
					files.set(params.path, params.content);
					return {};
				});
		}
		if (this.options.terminal) app = this.withTerminals(app);
		return app;
	}

	private withTerminals(app: ReturnType<typeof client>) {
		let counter = 0;
		const find = (id: string): LocalTerminal => {
			const terminal = this.terminals.get(id);
			if (!terminal) throw RequestError.resourceNotFound(id);
			return terminal;
		};
		return app
			.onRequest("terminal/create", ({ params }) => {
				this.terminalCommands.push([params.command, ...(params.args ?? [])].join(" "));
				const process = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? undefined });
				const terminal: LocalTerminal = {
					output: "",
					exit: new Promise((resolve) => process.on("exit", (exitCode, signal) => resolve({ exitCode, signal }))),
					kill: () => {
						if (process.exitCode === null && process.signalCode === null) process.kill("SIGKILL");
					},
				};
				const collect = (chunk: Buffer) => {
					terminal.output += chunk.toString("utf8");
				};
				process.stdout.on("data", collect);
				process.stderr.on("data", collect);
				counter += 1;
				const terminalId = `term-${counter}`;
				this.terminals.set(terminalId, terminal);
				return { terminalId };
			})
			.onRequest("terminal/output", async ({ params }) => {
				const terminal = find(params.terminalId);
				return { output: terminal.output, truncated: false };
			})
			.onRequest("terminal/wait_for_exit", async ({ params }) => find(params.terminalId).exit)
			.onRequest("terminal/kill", ({ params }) => {
				find(params.terminalId).kill();
				return {};
			})
			.onRequest("terminal/release", ({ params }) => {
				find(params.terminalId).kill();
				this.terminals.delete(params.terminalId);
				return {};
			});
	}
}
