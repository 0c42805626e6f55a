import { agent, ndJsonStream } from "@agentclientprotocol/sdk";
import { onTerminationSignal } from "../platform/process-io.js";
import { debugIdle, type IdleWork } from "../runtime/idle/idle-work.js";
import { MemoryRelease } from "../runtime/idle/memory-release.js";
import { preloadSteps, startPreload } from "../runtime/idle/preload-steps.js";
import { killAllShells } from "../tools/index.js";
import { AcpAgent, type AcpAgentOptions } from "./acp-agent.js";
import { readStdin, takeOverStdout } from "./stdio.js";
import { errorText } from "./update-queue.js";

/** How long shutdown waits for running work to stop before exiting anyway. */
const SHUTDOWN_GRACE_MS = 5000;

export interface AcpModeOptions extends Omit<AcpAgentOptions, "onSessionOpened"> {
	stdin?: NodeJS.ReadableStream;
	stdout?: NodeJS.WriteStream;
	/**
	 * Run once the process has been idle for a while after a prompt (the CLI gives back heap);
	 * returns whether it freed anything.
	 */
	releaseMemory?(): boolean;
}

/** Registers every ACP method Atomic serves on an SDK agent app. */
function buildApp(acp: AcpAgent, promptEnded: () => void) {
	return agent({ name: "atomic" })
		.onRequest("initialize", ({ params }) => acp.initialize(params))
		.onRequest("authenticate", ({ params }) => acp.authenticate(params.methodId))
		.onRequest("session/new", ({ params }) => acp.newSession(params.cwd, params.mcpServers))
		.onRequest("session/load", ({ params }) => acp.loadSession(params.sessionId, params.cwd, params.mcpServers, true))
		.onRequest("session/resume", ({ params }) =>
			acp.loadSession(params.sessionId, params.cwd, params.mcpServers ?? [], false),
		)
		.onRequest("session/list", ({ params }) => acp.listSessions(params.cwd, params.cursor))
		.onRequest("session/close", ({ params }) => acp.closeSession(params.sessionId))
		.onRequest("session/set_config_option", ({ params }) =>
			acp.setConfigOption(params.sessionId, params.configId, params.value),
		)
		.onRequest("session/set_mode", ({ params }) => acp.setMode(params.sessionId, params.modeId))
		.onRequest("session/prompt", ({ params }) => acp.prompt(params.sessionId, params.prompt).finally(promptEnded))
		.onNotification("session/cancel", ({ params }) => acp.cancel(params.sessionId));
}

/**
 * Runs `atomic --mode acp`: the Agent Client Protocol (JSON-RPC 2.0, one message per line) on
 * stdin and stdout, through the official SDK's agent-side connection. stdout belongs to the
 * protocol (everything else written there goes to stderr). Ends on stdin EOF (exit 0), SIGTERM
 * (143), SIGINT (130) and SIGHUP (129): every session stops, its MCP servers and shells end.
 * Resolves with the exit code.
 */
export function runAcpMode(options: AcpModeOptions): Promise<number> {
	const stdin = options.stdin ?? process.stdin;
	const output = takeOverStdout(options.stdout ?? process.stdout);
	let preload: IdleWork | undefined;
	let preloadOff = false;
	const acp: AcpAgent = new AcpAgent({
		...options,
		// The first session's model and tools tell what a first prompt will load: load it while idle.
		onSessionOpened: (session, { idlePreload }) => {
			if (preload || preloadOff) return;
			if (idlePreload) preload = startPreload(preloadSteps(session), () => acp.isBusy());
			else {
				preloadOff = true;
				if (debugIdle()) process.stderr.write("preload: off\n");
			}
		},
	});
	const releaseMemory = options.releaseMemory;
	const memory = releaseMemory ? new MemoryRelease(releaseMemory, () => acp.isBusy()) : undefined;
	stdin.on("data", () => {
		preload?.touch();
		memory?.touch();
	});
	const connection = buildApp(acp, () => memory?.workEnded()).connect(ndJsonStream(output, readStdin(stdin)));
	acp.client = connection.client;
	return new Promise((resolveExit) => {
		let shuttingDown = false;
		const shutdown = async (code: number): Promise<void> => {
			if (shuttingDown) return;
			shuttingDown = true;
			preload?.stop();
			memory?.stop();
			const grace = setTimeout(() => {
				killAllShells();
				resolveExit(code);
			}, SHUTDOWN_GRACE_MS);
			grace.unref();
			try {
				await acp.closeAll();
			} catch (error) {
				process.stderr.write(`Error during shutdown: ${errorText(error)}\n`);
			}
			clearTimeout(grace);
			killAllShells();
			connection.close();
			resolveExit(code);
		};
		void connection.closed.then(() => shutdown(0));
		acp.onShutdownRequest = () => setImmediate(() => void shutdown(0));
		onTerminationSignal((code) => {
			killAllShells();
			void shutdown(code);
		});
	});
}
