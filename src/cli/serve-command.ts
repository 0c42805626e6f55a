import { resolve } from "node:path";
import { onTerminationSignal } from "../platform/process-io.js";
import { createAgentSession } from "../runtime/facade/create-agent-session.js";
import { AtomicServer } from "../server/serve.js";

const USAGE = "usage: atomic serve [--host 127.0.0.1] [--port 4317] [--cwd DIR] [--allow-origin ORIGIN]...";

interface ServeArgs {
	host: string;
	port: number;
	cwd: string;
	allowOrigins: string[];
}

function parseServeArgs(args: readonly string[]): ServeArgs {
	const parsed: ServeArgs = { host: "127.0.0.1", port: 4317, cwd: process.cwd(), allowOrigins: [] };
	for (let index = 0; index < args.length; index++) {
		const arg = args[index] as string;
		const value = args[index + 1];
		if (value === undefined || !["--host", "--port", "--cwd", "--allow-origin"].includes(arg)) {
			throw new Error(`${value === undefined ? `${arg} needs a value` : `Unknown option: ${arg}`}\n${USAGE}`);
		}
		index++;
		if (arg === "--host") parsed.host = value;
		else if (arg === "--cwd") parsed.cwd = resolve(value);
		else if (arg === "--allow-origin") parsed.allowOrigins.push(value);
		else {
			const port = Number(value);
			if (!Number.isInteger(port) || port < 0 || port > 65535)
				throw new Error(`--port must be 0 to 65535 (got ${value})`);
			parsed.port = port;
		}
	}
	return parsed;
}

/** `atomic serve`: runs the server until SIGTERM or SIGINT; resolves with the exit code. */
export async function serveCommand(args: readonly string[], agentDir: string, version: string): Promise<number> {
	let options: ServeArgs;
	try {
		options = parseServeArgs(args);
	} catch (error) {
		process.stderr.write(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
		return 2;
	}
	const server = new AtomicServer({
		...options,
		agentDir,
		version,
		createSession: ({ cwd, sessionId, approve }) => {
			const { session, warnings } = createAgentSession({ cwd, session: sessionId, approve, agentDir });
			for (const warning of warnings) process.stderr.write(`Warning: ${warning}\n`);
			return session;
		},
	});
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
