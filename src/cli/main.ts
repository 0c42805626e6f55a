import type { AgentSession } from "../runtime/facade/agent-session.js";
import type { CreateAgentSessionOptions } from "../runtime/facade/create-agent-session.js";
import { type CliArgs, helpText, parseArgs } from "./args.js";
import { type ExtensionOptions, sessionOptions } from "./session-options.js";

// Only the argument parser is loaded up front: --version and --help answer without the runtime,
// --list-models loads only the model registry, and each mode imports what it runs.

declare const __ATOMIC_VERSION__: string;

type CreateAgentSession = typeof import("../runtime/facade/create-agent-session.js").createAgentSession;

function createWithSettings(
	createAgentSession: CreateAgentSession,
	args: CliArgs,
	extensions: ExtensionOptions,
	extra: CreateAgentSessionOptions = {},
): { session: AgentSession; idlePreload: boolean } {
	const { session, warnings, idlePreload } = createAgentSession({ ...sessionOptions(args, extensions), ...extra });
	for (const warning of warnings) process.stderr.write(`Warning: ${warning}\n`);
	return { session, idlePreload };
}

function create(
	createAgentSession: CreateAgentSession,
	args: CliArgs,
	extensions: ExtensionOptions,
	extra: CreateAgentSessionOptions = {},
): AgentSession {
	return createWithSettings(createAgentSession, args, extensions, extra).session;
}

async function main(argv: string[]): Promise<number> {
	if (argv[0] === "serve") {
		const [{ agentDir }, { serveCommand }] = await Promise.all([
			import("../llm/config-paths.js"),
			import("./serve-command.js"),
		]);
		return serveCommand(argv.slice(1), agentDir(), __ATOMIC_VERSION__, { parseArgs, sessionOptions });
	}
	if (argv[0] === "token") {
		const [{ agentDir }, { tokenCommand }] = await Promise.all([
			import("../llm/config-paths.js"),
			import("./token-command.js"),
		]);
		return tokenCommand(argv.slice(1), agentDir());
	}
	const args = parseArgs(argv);
	if (args.version) {
		process.stdout.write(`${__ATOMIC_VERSION__}\n`);
		return 0;
	}
	if (args.help) {
		process.stdout.write(`${helpText(__ATOMIC_VERSION__)}\n`);
		return 0;
	}
	// Read where the network would be used (the idle preload's connection); child processes see it too.
	if (args.offline) process.env.ATOMIC_OFFLINE = "1";
	if (args.rpcSchema) {
		// Loaded only here: building the document is not part of any other start-up.
		const { rpcSchemaText } = await import("../rpc/protocol/schema-document.js");
		process.stdout.write(rpcSchemaText());
		return 0;
	}
	const { agentDir } = await import("../llm/config-paths.js");
	if (args.sandboxCheck) {
		const { sandboxCheck } = await import("./sandbox-check.js");
		return sandboxCheck({ cwd: process.cwd(), agentDir: agentDir(), mode: args.sandboxMode });
	}
	if (args.listModels) {
		const [{ ModelRegistry }, { listModels }] = await Promise.all([
			import("../llm/model-registry.js"),
			import("./list-models.js"),
		]);
		const registry = new ModelRegistry(agentDir());
		for (const error of registry.errors) process.stderr.write(`Warning: ${error}\n`);
		process.stdout.write(`${listModels(registry, args.listModelsSearch)}\n`);
		return 0;
	}
	if (args.mode === "rpc") {
		const [{ runRpcMode }, { createAgentSession }] = await Promise.all([
			import("../rpc/rpc-mode.js"),
			import("../runtime/facade/create-agent-session.js"),
		]);
		const heap = tuneHeapSoon();
		return runRpcMode({
			version: __ATOMIC_VERSION__,
			releaseMemory: () => heap.tuning?.releaseIdleMemory() ?? false,
			createSession: ({ ui, approvals, requestShutdown }) =>
				createWithSettings(
					createAgentSession,
					args,
					{ mode: "rpc", ui, cancelDialogs: () => ui.cancelAll(), requestShutdown },
					{ approve: approvals.handler },
				),
		});
	}
	if (args.mode === "acp") {
		const [{ runAcpMode }, { createAgentSession }, { sessionDirectories }, { ModelRegistry }] = await Promise.all([
			import("../acp/acp-mode.js"),
			import("../runtime/facade/create-agent-session.js"),
			import("../runtime/current/session-directory.js"),
			import("../llm/model-registry.js"),
		]);
		const heap = tuneHeapSoon();
		return runAcpMode({
			version: __ATOMIC_VERSION__,
			releaseMemory: () => heap.tuning?.releaseIdleMemory() ?? false,
			sessionDirectories: sessionDirectories({ sessionDir: args.sessionDir, noSession: args.noSession }),
			hasCredentials: () => new ModelRegistry(agentDir()).available().length > 0,
			createSession: (request) =>
				createWithSettings(
					createAgentSession,
					// The editor chooses the session: --session, --continue and --name do not apply.
					{ ...args, session: request.sessionId, continueSession: false, name: undefined },
					{
						mode: "acp",
						ui: request.ui,
						cancelDialogs: request.cancelDialogs,
						requestShutdown: request.requestShutdown,
					},
					{
						cwd: request.cwd,
						mcpServers: request.mcpServers,
						toolBackends: request.toolBackends,
						approve: request.approve,
					},
				),
		});
	}
	if (args.print || args.messages.length > 0) {
		const prompt = args.messages.join(" ").trim();
		if (!prompt) throw new Error('No prompt given: atomic -p "your prompt"');
		const mode = args.mode === "json" ? "json" : "print";
		const [{ runPrintMode }, { createAgentSession }] = await Promise.all([
			import("./print-mode.js"),
			import("../runtime/facade/create-agent-session.js"),
		]);
		return runPrintMode(create(createAgentSession, args, { mode }), prompt, mode === "json" ? "json" : "text");
	}
	process.stderr.write(`${helpText(__ATOMIC_VERSION__)}\n`);
	return 1;
}

/** Exits once what was written to stdout has reached the OS (pipes are written asynchronously). */
function exitAfterFlush(code: number): void {
	process.stdout.write("", () => process.exit(code));
}

main(process.argv.slice(2)).then(exitAfterFlush, (error: unknown) => {
	process.stderr.write(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
	exitAfterFlush(1);
});

/** How long after start-up the heap tuning is loaded: the first responses never wait for it. */
const HEAP_TUNING_DELAY_MS = 100;

/**
 * Loads heap-tuning.ts (with node:v8, perf_hooks and vm) shortly after start-up and caps the
 * young generation then: start-up allocates far less than the cap, so nothing is lost by waiting.
 */
function tuneHeapSoon(): { tuning: typeof import("./heap-tuning.js") | undefined } {
	const heap: { tuning: typeof import("./heap-tuning.js") | undefined } = { tuning: undefined };
	// A process writing the code cache leaves V8's flags as they are: the cache is stamped with them.
	if (process.env.ATOMIC_COMPILE_CACHE === "write") return heap;
	setTimeout(() => {
		import("./heap-tuning.js").then(
			(tuning) => {
				heap.tuning = tuning;
				if (process.env.ATOMIC_DEBUG_IDLE === "1") process.stderr.write("heap: tuning on\n");
				tuning.capYoungGeneration();
			},
			(error: unknown) => process.stderr.write(`Warning: heap tuning unavailable: ${String(error)}\n`),
		);
	}, HEAP_TUNING_DELAY_MS).unref();
	return heap;
}
