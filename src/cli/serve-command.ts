import { realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { onTerminationSignal } from "../platform/process-io.js";
import { readRegularFileSync } from "../platform/regular-file.js";
import { sessionDirectories } from "../runtime/current/session-directory.js";
import { createAgentSession } from "../runtime/facade/create-agent-session.js";
import { DEFAULT_REPLAY_LIMITS } from "../server/event-log.js";
import { AtomicServer } from "../server/serve.js";
import { checkTlsCredentials, type TlsCredentials } from "../server/transport.js";
import { listSessions } from "../session/listing.js";
import type { CliArgs, parseArgs } from "./args.js";
import type { sessionOptions } from "./session-options.js";

const USAGE = [
	"usage: atomic serve [--host 127.0.0.1] [--port 4317] [--cwd DIR] [--allow-origin ORIGIN]...",
	"                    [--tls-cert FILE --tls-key FILE] [--no-login-url] [--idle-unload SECONDS]",
	"                    [--replay-events N] [--replay-mib N] [--max-frame-mib N] [agent options]",
	"agent options (every session): as for --mode rpc, e.g. --model, -e, --no-extensions, --approval-mode,",
	"  --sandbox, --session-dir, --no-session; not a prompt, --mode, --session, --continue or --name",
].join("\n");
const MIB = 1024 * 1024;
/** The largest certificate or key file read (a chain of a few certificates is a few KB). */
const MAX_PEM_BYTES = 1024 * 1024;

interface ServeArgs {
	host: string;
	port: number;
	cwd: string;
	allowOrigins: string[];
	tlsCert?: string;
	tlsKey?: string;
	loginUrl: boolean;
	idleUnloadMs?: number;
	replayEvents?: number;
	replayMib?: number;
	maxFrameMib?: number;
	/** The agent options, for every session. */
	agent: CliArgs;
}

const VALUE_OPTIONS = [
	"--host",
	"--port",
	"--cwd",
	"--allow-origin",
	"--tls-cert",
	"--tls-key",
	"--idle-unload",
	"--replay-events",
	"--replay-mib",
	"--max-frame-mib",
];

/** A whole number from `min` to `max` given to `flag`; throws naming the flag. */
function wholeNumber(flag: string, value: string, min: number, max: number): number {
	const number = Number(value);
	if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < min || number > max) {
		throw new Error(`${flag} must be a whole number from ${min} to ${max} (got ${value})`);
	}
	return number;
}

/** The agent options of `atomic serve`: those of RPC mode, without what clients choose themselves. */
function parseAgentArgs(argv: readonly string[], parseArgs: (argv: readonly string[]) => CliArgs): CliArgs {
	const agent = parseArgs(argv);
	if (agent.messages.length > 0) throw new Error(`atomic serve takes no prompt (got "${agent.messages[0]}")`);
	if (agent.mode !== "text" || agent.print || agent.listModels || agent.help || agent.version) {
		throw new Error("atomic serve runs no other mode: drop --mode, -p, --list-models, --help and --version");
	}
	if (agent.session !== undefined || agent.continueSession || agent.name !== undefined) {
		throw new Error("clients choose their sessions (attach): drop --session, --continue and --name");
	}
	return agent;
}

function parseServeArgs(args: readonly string[], parseArgs: (argv: readonly string[]) => CliArgs): ServeArgs {
	const rest: string[] = [];
	const parsed: Omit<ServeArgs, "agent"> = {
		host: "127.0.0.1",
		port: 4317,
		cwd: process.cwd(),
		allowOrigins: [],
		loginUrl: true,
	};
	for (let index = 0; index < args.length; index++) {
		const arg = args[index] as string;
		if (arg === "--no-login-url") {
			parsed.loginUrl = false;
			continue;
		}
		if (!VALUE_OPTIONS.includes(arg)) {
			rest.push(arg);
			continue;
		}
		const value = args[index + 1];
		if (value === undefined) throw new Error(`${arg} needs a value\n${USAGE}`);
		index++;
		if (arg === "--idle-unload") parsed.idleUnloadMs = wholeNumber(arg, value, 1, 365 * 86_400) * 1000;
		else if (arg === "--replay-events") parsed.replayEvents = wholeNumber(arg, value, 1, 10_000_000);
		else if (arg === "--replay-mib") parsed.replayMib = wholeNumber(arg, value, 1, 16_384);
		else if (arg === "--max-frame-mib") parsed.maxFrameMib = wholeNumber(arg, value, 1, 1024);
		else if (arg === "--host") parsed.host = value;
		else if (arg === "--cwd") parsed.cwd = resolve(value);
		else if (arg === "--allow-origin") parsed.allowOrigins.push(value);
		else if (arg === "--tls-cert") parsed.tlsCert = value;
		else if (arg === "--tls-key") parsed.tlsKey = value;
		else {
			const port = Number(value);
			if (!Number.isInteger(port) || port < 0 || port > 65535)
				throw new Error(`--port must be 0 to 65535 (got ${value})`);
			parsed.port = port;
		}
	}
	if ((parsed.tlsCert === undefined) !== (parsed.tlsKey === undefined)) {
		throw new Error(`--tls-cert and --tls-key go together: give both, or neither\n${USAGE}`);
	}
	let agent: CliArgs;
	try {
		agent = parseAgentArgs(rest, parseArgs);
	} catch (error) {
		throw new Error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`, { cause: error });
	}
	return { ...parsed, agent };
}

/** The certificate and key of `--tls-cert` and `--tls-key`, read; throws naming the file that cannot be. */
function readTls(options: ServeArgs): TlsCredentials | undefined {
	if (options.tlsCert === undefined || options.tlsKey === undefined) return undefined;
	const read = (flag: string, path: string): Buffer => {
		try {
			return readRegularFileSync(path, { maxBytes: MAX_PEM_BYTES });
		} catch (error) {
			throw new Error(`cannot read ${flag} ${path}: ${error instanceof Error ? error.message : String(error)}`, {
				cause: error,
			});
		}
	};
	const tls = { cert: read("--tls-cert", options.tlsCert), key: read("--tls-key", options.tlsKey) };
	try {
		checkTlsCredentials(tls);
	} catch (error) {
		const files = `--tls-cert ${options.tlsCert}, --tls-key ${options.tlsKey}`;
		throw new Error(`${error instanceof Error ? error.message : String(error)} (${files})`, { cause: error });
	}
	return tls;
}

/** `atomic serve`: runs the server until SIGTERM or SIGINT; resolves with the exit code. */
export async function serveCommand(
	args: readonly string[],
	agentDir: string,
	version: string,
	/** main.ts's argument parser and session options: passed in, so that the CLI's own chunk keeps them. */
	cli: { parseArgs: typeof parseArgs; sessionOptions: typeof sessionOptions },
): Promise<number> {
	let options: ServeArgs;
	try {
		options = parseServeArgs(args, cli.parseArgs);
	} catch (error) {
		process.stderr.write(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
		return 2;
	}
	// Credentials that cannot serve TLS stop the start (exit 1): never plain HTTP instead.
	let server: AtomicServer;
	try {
		server = new AtomicServer({
			host: options.host,
			port: options.port,
			cwd: options.cwd,
			allowOrigins: options.allowOrigins,
			loginUrl: options.loginUrl,
			tls: readTls(options),
			idleUnloadMs: options.idleUnloadMs,
			// dist/cli.js serves dist/web, the page the build made beside it.
			webRoot: join(dirname(realpathSync(process.argv[1] ?? ".")), "web"),
			maxFrameBytes: options.maxFrameMib === undefined ? undefined : options.maxFrameMib * MIB,
			replayLimits: {
				events: options.replayEvents ?? DEFAULT_REPLAY_LIMITS.events,
				bytes: options.replayMib === undefined ? DEFAULT_REPLAY_LIMITS.bytes : options.replayMib * MIB,
			},
			agentDir,
			version,
			createSession: ({ cwd, sessionId, approve, ui, cancelDialogs }) => {
				const { session, warnings } = createAgentSession({
					...cli.sessionOptions(options.agent, { mode: "rpc", ui, cancelDialogs }),
					cwd,
					session: sessionId,
					approve,
					agentDir,
				});
				for (const warning of warnings) process.stderr.write(`Warning: ${warning}\n`);
				return session;
			},
			storedSessions: (cwd) => {
				const directories = sessionDirectories({
					agentDir,
					sessionDir: options.agent.sessionDir,
					noSession: options.agent.noSession,
				});
				const dir = directories.forCwd(cwd);
				return dir ? listSessions(dir, cwd) : [];
			},
		});
	} catch (error) {
		process.stderr.write(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
		return 1;
	}
	try {
		await server.listen();
	} catch (error) {
		process.stderr.write(`Error: cannot listen: ${error instanceof Error ? error.message : String(error)}\n`);
		return 1;
	}
	return new Promise((resolveExit) => {
		// SIGTERM ends the service as asked (exit 0); other signals keep their conventional code.
		onTerminationSignal((code) => {
			void server.close().then(() => resolveExit(code === 143 ? 0 : code));
		});
	});
}
