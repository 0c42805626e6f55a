import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import {
	type AgentContext,
	type ClientCapabilities,
	type ContentBlock,
	type InitializeRequest,
	type InitializeResponse,
	type ListSessionsResponse,
	type McpServer,
	type PromptResponse,
	RequestError,
	type SessionConfigOption,
	type SessionModeState,
} from "@agentclientprotocol/sdk";
import type { McpServerConfig } from "../mcp/types.js";
import { describeFileKind } from "../platform/file-kind.js";
import type { SessionDirectories } from "../runtime/current/session-directory.js";
import type { AgentSession } from "../runtime/facade/agent-session.js";
import { readSessionHeader } from "../session/header-reader.js";
import { sessionFilesByRecency } from "../session/open.js";
import { AcpSession, type AcpSessionSetup } from "./acp-session.js";
import { API_KEY_METHOD, initializeResponse } from "./initialize.js";
import { mcpServerConfigs } from "./mcp-servers.js";
import { setSessionMode } from "./permissions.js";
import { listAcpSessions } from "./session-list.js";
import { errorText } from "./update-queue.js";

/** What the mode asks of its host for one session. */
export interface SessionRequest extends AcpSessionSetup {
	cwd: string;
	/** Open this stored session (by id); absent: start a new one. */
	sessionId?: string;
	mcpServers: McpServerConfig[];
	/** An extension's ctx.shutdown(): the process ends (every session closes). */
	requestShutdown(): void;
}

export interface AcpAgentOptions {
	version: string;
	/**
	 * Builds an AgentSession; may throw (an unknown session id, a bad --model): the request fails
	 * with the message. `idlePreload` is the session's settings.json `idlePreload`.
	 */
	createSession(request: SessionRequest): { session: AgentSession; idlePreload: boolean };
	/** Told of every session opened (after it answers its first update). Must not throw. */
	onSessionOpened?(session: AgentSession, settings: { idlePreload: boolean }): void;
	sessionDirectories: SessionDirectories;
	/** Whether some provider has a key (for `authenticate`). */
	hasCredentials(): boolean;
}

const INTERNAL_ERROR = -32603;

/** What session/new, load and resume answer besides the id. */
interface SessionSetupResponse {
	modes: SessionModeState;
	configOptions: SessionConfigOption[];
}
const AUTH_REQUIRED = -32000;

/**
 * The ACP agent: the open sessions of this connection (several at once, each with its own
 * AgentSession, cwd and state) and what every request does with them.
 */
export class AcpAgent {
	private readonly sessions = new Map<string, AcpSession>();
	private capabilities: ClientCapabilities = {};
	/** Set once the connection is open: requests to the client (files, terminals, permissions) go through it. */
	client: AgentContext | undefined;
	/** What an extension's ctx.shutdown() calls (set by the mode). */
	onShutdownRequest: () => void = () => undefined;

	constructor(private readonly options: AcpAgentOptions) {}

	initialize(request: InitializeRequest): InitializeResponse {
		this.capabilities = request.clientCapabilities ?? {};
		return initializeResponse(request, this.options.version);
	}

	authenticate(methodId: string): Record<string, never> {
		if (methodId !== API_KEY_METHOD) {
			throw RequestError.invalidParams(
				{ methodId },
				`unknown authentication method "${methodId}" (known: ${API_KEY_METHOD})`,
			);
		}
		if (!this.options.hasCredentials()) {
			throw new RequestError(AUTH_REQUIRED, "No provider has an API key yet: set one in the environment or auth.json.");
		}
		return {};
	}

	newSession(cwd: string, mcpServers: readonly McpServer[]): SessionSetupResponse & { sessionId: string } {
		const session = this.open(cwd, undefined, mcpServers);
		return { sessionId: session.id, modes: session.modes(), configOptions: session.configOptions() };
	}

	/** `session/load` (replay the active branch first) and `session/resume` (no replay). */
	async loadSession(
		sessionId: string,
		cwd: string,
		mcpServers: readonly McpServer[],
		replay: boolean,
	): Promise<SessionSetupResponse> {
		const session = this.sessions.get(sessionId) ?? this.open(cwd, sessionId, mcpServers);
		if (replay) await session.replay();
		return { modes: session.modes(), configOptions: session.configOptions() };
	}

	/** `session/set_mode`: the approval mode; `current_mode_update` follows. */
	setMode(sessionId: string, modeId: string): Record<string, never> {
		setSessionMode(this.get(sessionId).session, modeId);
		return {};
	}

	listSessions(cwd: string | null | undefined, cursor: string | null | undefined): ListSessionsResponse {
		return listAcpSessions(this.options.sessionDirectories, { cwd, cursor });
	}

	async closeSession(sessionId: string): Promise<Record<string, never>> {
		const session = this.get(sessionId);
		this.sessions.delete(sessionId);
		await session.close();
		return {};
	}

	setConfigOption(
		sessionId: string,
		configId: string,
		value: string | boolean,
	): { configOptions: SessionConfigOption[] } {
		const session = this.get(sessionId);
		session.setConfigOption(configId, value);
		return { configOptions: session.configOptions() };
	}

	prompt(sessionId: string, prompt: readonly ContentBlock[]): Promise<PromptResponse> {
		return this.get(sessionId).prompt(prompt);
	}

	/** `session/cancel` (a notification: an unknown session is ignored). */
	async cancel(sessionId: string): Promise<void> {
		await this.sessions.get(sessionId)?.cancel();
	}

	/** Ends every session (stdin closed, a signal): runs stop, MCP servers and shells end. */
	async closeAll(): Promise<void> {
		const sessions = [...this.sessions.values()];
		this.sessions.clear();
		await Promise.all(sessions.map((session) => session.close()));
	}

	get(sessionId: string): AcpSession {
		const session = this.sessions.get(sessionId);
		if (!session) throw RequestError.sessionNotFound(sessionId);
		return session;
	}

	/** Whether a session with this exact id is stored for `cwd`. */
	private isStored(sessionId: string, cwd: string): boolean {
		const dir = this.options.sessionDirectories.forCwd(cwd);
		if (!dir) return false;
		return sessionFilesByRecency(dir).some(({ path }) => readSessionHeader(path)?.id === sessionId);
	}

	/** Whether any open session is working (a prompt or a compaction). */
	isBusy(): boolean {
		for (const { session } of this.sessions.values()) if (session.isStreaming || session.isCompacting) return true;
		return false;
	}

	private open(cwd: string, sessionId: string | undefined, mcpServers: readonly McpServer[]): AcpSession {
		if (!isAbsolute(cwd)) throw RequestError.invalidParams({ cwd }, "cwd must be an absolute path");
		const problem = directoryProblem(cwd);
		if (problem) throw RequestError.invalidParams({ cwd }, problem);
		if (sessionId !== undefined && !this.isStored(sessionId, cwd)) throw RequestError.sessionNotFound(sessionId);
		const client = this.client;
		if (!client) throw new RequestError(INTERNAL_ERROR, "The connection is not open yet");
		const acp = new AcpSession(client, this.capabilities);
		let agentSession: AgentSession;
		let idlePreload: boolean;
		try {
			const request: SessionRequest = {
				...acp.setup(),
				cwd,
				mcpServers: mcpServerConfigs(mcpServers),
				requestShutdown: () => this.onShutdownRequest(),
			};
			if (sessionId !== undefined) request.sessionId = sessionId;
			({ session: agentSession, idlePreload } = this.options.createSession(request));
		} catch (error) {
			throw new RequestError(INTERNAL_ERROR, errorText(error));
		}
		acp.attach(agentSession);
		this.sessions.set(acp.id, acp);
		this.options.onSessionOpened?.(agentSession, { idlePreload });
		return acp;
	}
}

/** Why `cwd` cannot be a session's working directory, or undefined when it is an existing directory. */
function directoryProblem(cwd: string): string | undefined {
	try {
		const stats = statSync(cwd);
		return stats.isDirectory() ? undefined : `cwd is ${describeFileKind(stats)}, not a directory`;
	} catch (error) {
		return `cwd cannot be used: ${errorText(error)}`;
	}
}
