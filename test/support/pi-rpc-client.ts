/**
 * A client typed the way pi 1.6's RpcClient (`@earendil-works/pi-coding-agent`) is: the same
 * options, method names and signatures, and the same handling of responses (it reads `data`
 * without checking it, as pi's client trusts the agent). Tests drive Atomic with it to prove that
 * hosts written against pi's client work unchanged. Written for these tests from pi's published
 * types; pi's package itself needs Node 22 and a large install, so it is not a dependency.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import type { AgentMessage } from "../../src/agent/messages.js";
import type { ImageContent, ThinkingLevel } from "../../src/llm/types.js";

// ------------------------------------------------------------------ pi's types, as published

export type QueuedInputDisposition = "handled" | "queued";
export type PromptDisposition = QueuedInputDisposition | "started";

export interface SourceInfo {
	path: string;
	source: string;
	scope: "user" | "project" | "temporary";
	origin: "package" | "top-level";
	baseDir?: string;
}

export interface RpcSlashCommand {
	name: string;
	description?: string;
	source: "extension" | "prompt" | "skill";
	sourceInfo: SourceInfo;
}

export interface CompactionResult<T = unknown> {
	summary: string;
	firstKeptEntryId: string;
	tokensBefore: number;
	estimatedTokensAfter?: number;
	details?: T;
}

export interface RpcSessionState {
	model?: { provider: string; id: string };
	thinkingLevel: ThinkingLevel;
	isStreaming: boolean;
	isCompacting: boolean;
	steeringMode: "all" | "one-at-a-time";
	followUpMode: "all" | "one-at-a-time";
	sessionFile?: string;
	sessionId: string;
	sessionName?: string;
	autoCompactionEnabled: boolean;
	messageCount: number;
	pendingMessageCount: number;
}

export interface ModelInfo {
	provider: string;
	id: string;
	contextWindow: number;
	reasoning: boolean;
}

export interface RpcClientOptions {
	cliPath?: string;
	cwd?: string;
	env?: Record<string, string>;
	provider?: string;
	model?: string;
	args?: string[];
}

export type RpcEvent = { type: string } & Record<string, unknown>;
export type RpcEventListener = (event: RpcEvent) => void;

type RpcResponse = { id?: string; type: "response"; command: string } & (
	| { success: true; data?: unknown }
	| { success: false; error: string }
);

// ------------------------------------------------------------------ the client

export class PiRpcClient {
	/** Every record read from stdout (responses and events), for the tests' schema check. */
	readonly records: RpcEvent[] = [];
	private child: ChildProcessWithoutNullStreams | undefined;
	private readonly listeners: RpcEventListener[] = [];
	private readonly pending = new Map<string, { resolve(response: RpcResponse): void; reject(error: Error): void }>();
	private requestId = 0;
	private stderr = "";
	private exitError: Error | undefined;

	constructor(private readonly options: RpcClientOptions = {}) {}

	async start(): Promise<void> {
		if (this.child) throw new Error("Client already started");
		const args = [this.options.cliPath ?? "dist/cli.js", "--mode", "rpc"];
		if (this.options.provider) args.push("--provider", this.options.provider);
		if (this.options.model) args.push("--model", this.options.model);
		args.push(...(this.options.args ?? []));
		const child = spawn(process.execPath, args, {
			cwd: this.options.cwd,
			env: { ...process.env, ...this.options.env },
			stdio: ["pipe", "pipe", "pipe"],
		});
		this.child = child;
		child.stderr.on("data", (chunk: Buffer) => {
			this.stderr += chunk.toString();
		});
		child.once("exit", (code, signal) => {
			this.exitError = new Error(`Agent process exited (code=${code} signal=${signal}). Stderr: ${this.stderr}`);
			for (const request of this.pending.values()) request.reject(this.exitError);
			this.pending.clear();
		});
		let buffer = "";
		child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
			buffer += chunk;
			for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
				const line = buffer.slice(0, newline);
				buffer = buffer.slice(newline + 1);
				this.handleLine(line.endsWith("\r") ? line.slice(0, -1) : line);
			}
		});
	}

	async stop(): Promise<void> {
		const child = this.child;
		if (!child) return;
		if (child.exitCode === null && child.signalCode === null) {
			const exited = new Promise((resolve) => child.once("exit", resolve));
			child.kill("SIGTERM");
			await exited;
		}
		this.child = undefined;
	}

	onEvent(listener: RpcEventListener): () => void {
		this.listeners.push(listener);
		return () => {
			const index = this.listeners.indexOf(listener);
			if (index >= 0) this.listeners.splice(index, 1);
		};
	}

	getStderr(): string {
		return this.stderr;
	}

	async prompt(
		message: string,
		images?: ImageContent[],
		streamingBehavior?: "steer" | "followUp",
	): Promise<PromptDisposition> {
		return this.data<{ disposition: PromptDisposition }>(
			await this.send({ type: "prompt", message, images, streamingBehavior }),
		).disposition;
	}

	async steer(message: string, images?: ImageContent[]): Promise<QueuedInputDisposition> {
		return this.data<{ disposition: QueuedInputDisposition }>(await this.send({ type: "steer", message, images }))
			.disposition;
	}

	async followUp(message: string, images?: ImageContent[]): Promise<QueuedInputDisposition> {
		return this.data<{ disposition: QueuedInputDisposition }>(await this.send({ type: "follow_up", message, images }))
			.disposition;
	}

	async abort(): Promise<void> {
		await this.send({ type: "abort" });
	}

	async clearQueue(): Promise<{ steering: string[]; followUp: string[] }> {
		return this.data(await this.send({ type: "clear_queue" }));
	}

	async newSession(parentSession?: string): Promise<{ cancelled: boolean }> {
		return this.data(await this.send({ type: "new_session", parentSession }));
	}

	async getState(): Promise<RpcSessionState> {
		return this.data(await this.send({ type: "get_state" }));
	}

	async getAvailableModels(): Promise<ModelInfo[]> {
		return this.data<{ models: ModelInfo[] }>(await this.send({ type: "get_available_models" })).models;
	}

	async setThinkingLevel(level: ThinkingLevel): Promise<void> {
		await this.send({ type: "set_thinking_level", level });
	}

	async compact(customInstructions?: string): Promise<CompactionResult> {
		return this.data(await this.send({ type: "compact", customInstructions }));
	}

	async setSessionName(name: string): Promise<void> {
		await this.send({ type: "set_session_name", name });
	}

	async getMessages(): Promise<AgentMessage[]> {
		return this.data<{ messages: AgentMessage[] }>(await this.send({ type: "get_messages" })).messages;
	}

	async getCommands(): Promise<RpcSlashCommand[]> {
		return this.data<{ commands: RpcSlashCommand[] }>(await this.send({ type: "get_commands" })).commands;
	}

	async getLastAssistantText(): Promise<string | null> {
		return this.data<{ text: string | null }>(await this.send({ type: "get_last_assistant_text" })).text;
	}

	/** Resolves at the next agent_settled. */
	waitForIdle(timeout = 60_000): Promise<void> {
		return this.collectEvents(timeout).then(() => undefined);
	}

	/** Every event until the next agent_settled (included). */
	collectEvents(timeout = 60_000): Promise<RpcEvent[]> {
		return new Promise((resolve, reject) => {
			const events: RpcEvent[] = [];
			const timer = setTimeout(() => {
				stop();
				reject(new Error(`Timeout collecting events. Stderr: ${this.stderr}`));
			}, timeout);
			const stop = this.onEvent((event) => {
				events.push(event);
				if (event.type !== "agent_settled") return;
				clearTimeout(timer);
				stop();
				resolve(events);
			});
		});
	}

	async promptAndWait(message: string, images?: ImageContent[], timeout = 60_000): Promise<RpcEvent[]> {
		const events = this.collectEvents(timeout);
		await this.prompt(message, images);
		return events;
	}

	// ------------------------------------------------------------------ internals

	private handleLine(line: string): void {
		let record: unknown;
		try {
			record = JSON.parse(line);
		} catch (error) {
			this.stderr += `unreadable line (${String(error)}): ${line}\n`;
			return;
		}
		if (typeof record !== "object" || record === null || !("type" in record) || typeof record.type !== "string") return;
		const typed = record as RpcEvent;
		this.records.push(typed);
		if (typed.type === "response" && typeof typed.id === "string" && this.pending.has(typed.id)) {
			const request = this.pending.get(typed.id);
			this.pending.delete(typed.id);
			request?.resolve(typed as unknown as RpcResponse);
			return;
		}
		for (const listener of [...this.listeners]) listener(typed);
	}

	private send(command: Record<string, unknown>): Promise<RpcResponse> {
		const child = this.child;
		if (!child) return Promise.reject(new Error("Client not started"));
		if (this.exitError) return Promise.reject(this.exitError);
		const id = `req_${++this.requestId}`;
		return new Promise((resolve, reject) => {
			this.pending.set(id, { resolve, reject });
			child.stdin.write(`${JSON.stringify({ ...command, id })}\n`);
		});
	}

	/** pi's getData: the `data` of a success, or the error text thrown. */
	private data<T>(response: RpcResponse): T {
		if (!response.success) throw new Error(response.error);
		return response.data as T;
	}
}
