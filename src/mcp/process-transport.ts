import { type ChildProcess, spawn } from "node:child_process";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { trackServerProcess, untrackServerProcess } from "./server-processes.js";

/** How long a server may take to exit after its stdin closed, then after SIGTERM. */
const EXIT_GRACE_MS = 1000;

export interface ProcessTransportOptions {
	command: string;
	args: string[];
	/** Added to the SDK's minimal inherited environment (HOME, LOGNAME, PATH, SHELL, TERM, USER). */
	env: Record<string, string>;
	cwd: string;
	/** What the server writes to stderr, chunk by chunk. Must not throw. */
	onStderr(chunk: string): void;
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
	try {
		process.kill(-pid, signal);
	} catch (error) {
		// ESRCH: the group is gone already.
		if (!(error instanceof Error && "code" in error && error.code === "ESRCH")) throw error;
	}
}

/**
 * The stdio transport of an MCP server: a child process in its own process group, speaking
 * newline-delimited JSON-RPC on stdin and stdout (the SDK's framing). Unlike the SDK's stdio
 * transport, `close()` resolves only once the process has exited (stdin closed, then SIGTERM, then
 * SIGKILL to its whole group), and `exit` says how it ended, for error messages.
 */
export class ProcessTransport implements Transport {
	onclose?: () => void;
	onerror?: (error: Error) => void;
	onmessage?: (message: JSONRPCMessage) => void;
	/** How the process ended (`exit code 3`, `signal SIGKILL`), once it has. */
	exit: string | undefined;
	private child: ChildProcess | undefined;
	private readonly buffer = new ReadBuffer();
	private exited: Promise<void> = Promise.resolve();
	private closing: Promise<void> | undefined;

	constructor(private readonly options: ProcessTransportOptions) {}

	get pid(): number | undefined {
		return this.child?.pid;
	}

	start(): Promise<void> {
		if (this.child) throw new Error("the server process is already started");
		const { command, args, env, cwd } = this.options;
		const child = spawn(command, args, {
			cwd,
			env: { ...getDefaultEnvironment(), ...env },
			stdio: ["pipe", "pipe", "pipe"],
			detached: true,
		});
		this.child = child;
		this.exited = new Promise((resolve) => {
			child.once("close", () => {
				this.onclose?.();
				resolve();
			});
		});
		child.once("exit", (code, signal) => {
			this.exit = signal ? `signal ${signal}` : `exit code ${code}`;
			if (child.pid !== undefined) untrackServerProcess(child.pid);
		});
		child.stdout?.on("data", (chunk: Buffer) => this.read(chunk));
		child.stderr?.on("data", (chunk: Buffer) => this.options.onStderr(chunk.toString("utf8")));
		for (const stream of [child.stdin, child.stdout, child.stderr]) {
			stream?.on("error", (error: Error) => this.onerror?.(error));
		}
		return new Promise((resolve, reject) => {
			child.once("spawn", () => {
				if (child.pid !== undefined) trackServerProcess(child.pid);
				child.on("error", (error) => this.onerror?.(error));
				resolve();
			});
			child.once("error", reject);
		});
	}

	send(message: JSONRPCMessage): Promise<void> {
		const stdin = this.child?.stdin;
		if (!stdin || stdin.destroyed || this.closing) return Promise.reject(new Error("Not connected"));
		return new Promise((resolve, reject) => {
			stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
		});
	}

	/** Ends the server: closes its stdin, then signals its process group until it has exited. */
	close(): Promise<void> {
		this.closing ??= this.terminate();
		return this.closing;
	}

	private async terminate(): Promise<void> {
		const child = this.child;
		if (!child || child.pid === undefined) return;
		const pid = child.pid;
		const ended = () => child.exitCode !== null || child.signalCode !== null;
		child.stdin?.end();
		for (const signal of ["SIGTERM", "SIGKILL"] as const) {
			if (ended() || (await this.exitWithin(EXIT_GRACE_MS))) break;
			signalGroup(pid, signal);
		}
		await this.exited;
		// Children it left in its group (a wrapper's server) get SIGTERM too.
		signalGroup(pid, "SIGTERM");
		this.buffer.clear();
	}

	private async exitWithin(ms: number): Promise<boolean> {
		let timer: NodeJS.Timeout | undefined;
		const timeout = new Promise<false>((resolve) => {
			timer = setTimeout(() => resolve(false), ms);
		});
		const result = await Promise.race([this.exited.then(() => true), timeout]);
		clearTimeout(timer);
		return result;
	}

	private read(chunk: Buffer): void {
		try {
			this.buffer.append(chunk);
		} catch (error) {
			this.onerror?.(error instanceof Error ? error : new Error(String(error)));
			void this.close();
			return;
		}
		for (;;) {
			try {
				const message = this.buffer.readMessage();
				if (message === null) return;
				this.onmessage?.(message);
			} catch (error) {
				this.onerror?.(error instanceof Error ? error : new Error(String(error)));
			}
		}
	}
}
