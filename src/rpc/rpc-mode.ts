import { onTerminationSignal, takeOverStdoutWrites } from "../platform/process-io.js";
import type { AgentSession } from "../runtime/facade/agent-session.js";
import { debugIdle, type IdleWork } from "../runtime/idle/idle-work.js";
import { MemoryRelease } from "../runtime/idle/memory-release.js";
import { preloadSteps, startPreload } from "../runtime/idle/preload-steps.js";
import { killAllShells } from "../tools/shell-processes.js";
import { RpcApprovals } from "./approvals.js";
import { RpcExtensionUi } from "./extension-ui.js";
import { LineSplitter, type RecordText, readRecords } from "./framing.js";
import { type OutputStream, OutputWriter } from "./output.js";
import { COMMANDS, SERVER_ONLY_COMMANDS } from "./protocol/commands.js";
import { loadValidator } from "./protocol/validate.js";
import { RpcServer } from "./server.js";

export const PROTOCOL_VERSION = 1;

/** How long shutdown waits for running work to answer before exiting anyway. */
const SHUTDOWN_GRACE_MS = 5000;

export interface RpcModeOptions {
	version: string;
	/**
	 * Builds the session; may throw (bad --model): the error goes to stderr and the exit code is 1.
	 * `ui` is the dialog bridge for extensions; `approvals` answers tool approval requests from
	 * the client; `requestShutdown` is what `ctx.shutdown()` calls. `idlePreload: false` (settings.json)
	 * turns off loading ahead, while idle, what the first prompt needs.
	 */
	createSession(rpc: { ui: RpcExtensionUi; approvals: RpcApprovals; requestShutdown(): void }): {
		session: AgentSession;
		idlePreload?: boolean;
	};
	stdin?: NodeJS.ReadableStream;
	stdout?: NodeJS.WriteStream;
	/**
	 * Run once the process has been idle for a while after a prompt (the CLI gives back heap);
	 * returns whether it did anything.
	 */
	releaseMemory?(): boolean;
}

/**
 * Runs `atomic --mode rpc`: takes stdout for the protocol (everything else written to stdout,
 * console.* included, goes to stderr), reads commands from stdin from the very start (records
 * that arrive before the session is ready wait, in order), writes a `ready` event first, and
 * shuts down cleanly on stdin EOF (exit 0), SIGTERM (143), SIGINT (130) and SIGHUP (129).
 * Resolves with the exit code.
 */
export function runRpcMode(options: RpcModeOptions): Promise<number> {
	const stdin = options.stdin ?? process.stdin;
	const stdout = options.stdout ?? process.stdout;
	const protocolStream = takeOverStdout(stdout);
	return new Promise((resolveExit) => {
		let server: RpcServer | undefined;
		let session: AgentSession | undefined;
		let preload: IdleWork | undefined;
		let release: MemoryRelease | undefined;
		const early: RecordText[] = [];
		let shuttingDown = false;

		const writer = new OutputWriter(protocolStream, () => {
			void shutdown(0);
		});
		const splitter = new LineSplitter((record) => {
			if (server) server.handleRecord(record);
			else early.push(record);
		});

		const shutdown = async (code: number): Promise<void> => {
			if (shuttingDown) {
				killAllShells();
				resolveExit(code);
				return;
			}
			shuttingDown = true;
			preload?.stop();
			release?.stop();
			stdin.removeAllListeners("data");
			stdin.pause();
			const grace = setTimeout(() => {
				killAllShells();
				resolveExit(code);
			}, SHUTDOWN_GRACE_MS);
			grace.unref();
			try {
				if (session) await session.dispose();
				if (server) await server.settle();
				server?.detach();
				await writer.flush();
			} catch (error) {
				process.stderr.write(`Error during shutdown: ${error instanceof Error ? error.message : String(error)}\n`);
			}
			clearTimeout(grace);
			killAllShells();
			resolveExit(code);
		};

		readRecords(stdin, splitter, () => {
			preload?.touch();
			release?.touch();
		});
		stdin.on("end", () => {
			splitter.end();
			void shutdown(0);
		});
		stdin.on("error", () => void shutdown(0));
		onTerminationSignal((code) => {
			killAllShells();
			void shutdown(code);
		});

		let shutdownRequested = false;
		const ui = new RpcExtensionUi((record) => void writer.write(record));
		const approvals = new RpcApprovals();
		let idlePreload: boolean | undefined;
		try {
			({ session, idlePreload } = options.createSession({
				ui,
				approvals,
				requestShutdown: () => {
					shutdownRequested = true;
				},
			}));
		} catch (error) {
			process.stderr.write(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
			resolveExit(1);
			return;
		}
		writer.write({
			type: "ready",
			version: options.version,
			protocolVersion: PROTOCOL_VERSION,
			pid: process.pid,
			capabilities: Object.keys(COMMANDS).filter((type) => !SERVER_ONLY_COMMANDS.has(type)),
		});
		// An extension's ctx.shutdown() takes effect after the next command's response.
		server = new RpcServer(
			session,
			writer,
			ui,
			() => {
				if (shutdownRequested) void shutdown(0);
			},
			approvals,
		);
		for (const record of early.splice(0)) server.handleRecord(record);
		if (shuttingDown) return;
		if (idlePreload !== false) preload = preloadFor(session);
		else if (debugIdle()) process.stderr.write("preload: off\n");
		const releaseMemory = options.releaseMemory;
		if (releaseMemory) {
			const working = session;
			const memory = new MemoryRelease(releaseMemory, () => working.isStreaming || working.isCompacting);
			release = memory;
			working.subscribe((event) => {
				if (event.type === "agent_settled" && !shuttingDown) memory.workEnded();
			});
		}
	});
}

/**
 * Loads, while no command arrives and no prompt runs, what the first prompt would otherwise load:
 * the model's provider SDK, the HTTP client, the validators, the tools' libraries.
 */
function preloadFor(session: AgentSession): IdleWork {
	const steps = [...preloadSteps(session), { name: "command-validator", run: loadValidator }];
	return startPreload(steps, () => session.isStreaming || session.isCompacting);
}

/** The real stdout for protocol records; every other write to stdout goes to stderr. */
function takeOverStdout(stdout: NodeJS.WriteStream): OutputStream {
	const write = takeOverStdoutWrites(stdout);
	return {
		write: (chunk, callback) => write(chunk, callback),
		once: (event, listener) => stdout.once(event, listener),
		on: (event, listener) => stdout.on(event, listener),
	};
}
