/** The ACP end-to-end harness: one loopback model server per file, clients killed after each test. */
import { join } from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import { type AcpClientOptions, AcpTestClient } from "../support/acp-client.js";
import { LlmServer } from "../support/llm-server.js";
import { makeAgentDir } from "../support/rpc-process.js";

export type AgentDirs = ReturnType<typeof makeAgentDir>;

export interface StartAcpOptions extends Omit<AcpClientOptions, "agentDir" | "home" | "cwd"> {
	settings?: Record<string, unknown>;
	/** Reuse these directories (a second process on the same sessions). */
	dirs?: AgentDirs;
	/** Persist sessions under `<root>/sessions` (default true). */
	sessions?: boolean;
	prepare?(dirs: AgentDirs): void;
	/** Skip initialize (default: initialized). */
	initialize?: boolean;
}

export interface StartedAcp {
	client: AcpTestClient;
	dirs: AgentDirs;
	sessionDir: string;
}

const started: AcpTestClient[] = [];
const trees: AgentDirs[] = [];

export function useAcpHarness(): { readonly server: LlmServer; start(options?: StartAcpOptions): Promise<StartedAcp> } {
	let server: LlmServer | undefined;
	beforeAll(async () => {
		server = await LlmServer.start();
	});
	afterEach(async () => {
		for (const client of started.splice(0)) {
			client.kill();
			await client.exited;
		}
		for (const dirs of trees.splice(0)) dirs.cleanup();
		server?.reset();
	});
	afterAll(async () => {
		await server?.close();
	});
	const harness = {
		get server(): LlmServer {
			if (!server) throw new Error("the model server is not started yet");
			return server;
		},
		async start(options: StartAcpOptions = {}): Promise<StartedAcp> {
			let dirs = options.dirs;
			if (!dirs) {
				dirs = makeAgentDir({ server: harness.server, settings: options.settings });
				trees.push(dirs);
				options.prepare?.(dirs);
			}
			const sessionDir = join(dirs.root, "sessions");
			const sessionArgs = options.sessions === false ? ["--no-session"] : ["--session-dir", sessionDir];
			const client = new AcpTestClient({
				...options,
				agentDir: dirs.agentDir,
				home: dirs.home,
				cwd: dirs.root,
				args: [...sessionArgs, "--model", "mock/mock-model", ...(options.args ?? [])],
				env: { TMPDIR: join(dirs.root, "tmp"), ...options.env },
			});
			started.push(client);
			if (options.initialize !== false) await client.initialize();
			return { client, dirs, sessionDir };
		},
	};
	return harness;
}
