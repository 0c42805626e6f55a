import {
	type AgentContext,
	type ClientCapabilities,
	type ContentBlock,
	type PromptResponse,
	RequestError,
	type SessionConfigOption,
	type SessionModeState,
	type StopReason,
} from "@agentclientprotocol/sdk";
import type { ExtensionUiBackend } from "../extensions/ui-types.js";
import type { AssistantMessage } from "../llm/types.js";
import type { ApprovalHandler } from "../runtime/approvals/types.js";
import type { AgentSession } from "../runtime/facade/agent-session.js";
import type { BuiltInToolOptions, TextFileBackend } from "../tools/index.js";
import { clientFileBackend, readTextOrUndefined } from "./client-files.js";
import { clientTerminalRunner } from "./client-terminal.js";
import { availableCommands } from "./commands.js";
import { configOptionSupport, configOptions, setConfigOption } from "./config-options.js";
import { AcpDialogs } from "./extension-dialogs.js";
import { permissionHandler, sessionModes } from "./permissions.js";
import { promptInput } from "./prompt-input.js";
import { replayBranch } from "./replay.js";
import { SessionEvents } from "./session-events.js";
import { ToolCallTracker } from "./tool-calls.js";
import { errorText, UpdateQueue } from "./update-queue.js";

/** What the mode gives the session factory for one ACP session. */
export interface AcpSessionSetup {
	/** The editor's files and terminals, where the client offers them. */
	toolBackends: Pick<BuiltInToolOptions, "files" | "runShell">;
	/** Extension dialogs in the editor. */
	ui: ExtensionUiBackend;
	cancelDialogs(): void;
	/** Tool approvals as permission requests to the editor. */
	approve: ApprovalHandler;
}

/** The JSON-RPC code of "authentication required". */
const AUTH_REQUIRED = -32000;
const INTERNAL_ERROR = -32603;

/**
 * One ACP session over one AgentSession: prompts (a prompt that arrives while one runs is queued
 * as steering and answered when the run it joined settles), cancel, replay, config options, the
 * available commands, and every event mapped to updates that go out before the prompt's response.
 */
export class AcpSession {
	readonly updates: UpdateQueue;
	readonly tools: ToolCallTracker;
	readonly dialogs: AcpDialogs;
	readonly files: TextFileBackend | undefined;
	private agentSession: AgentSession | undefined;
	private lastReply: AssistantMessage | undefined;
	private cancelled = false;
	private settleWaiters: (() => void)[] = [];
	private commandsSent: string | undefined;
	private closed = false;
	/** The ACP session id: the Atomic session's id when it was attached (fixed from then on). */
	private attachedId = "";

	constructor(
		private readonly client: AgentContext,
		private readonly capabilities: ClientCapabilities,
	) {
		this.updates = new UpdateQueue(client, () => this.id);
		const send = (update: Parameters<UpdateQueue["send"]>[0]) => this.updates.send(update);
		this.files = clientFileBackend(client, () => this.id, capabilities.fs);
		this.tools = new ToolCallTracker({
			cwd: () => this.session.cwd,
			send,
			readText: (path) => readTextOrUndefined(this.files, path),
		});
		this.dialogs = new AcpDialogs({ client, capabilities, sessionId: () => this.id, send });
	}

	/** The setup for the factory that builds this session's AgentSession. */
	setup(): AcpSessionSetup {
		const toolBackends: AcpSessionSetup["toolBackends"] = {};
		if (this.files) toolBackends.files = this.files;
		if (this.capabilities.terminal) {
			toolBackends.runShell = clientTerminalRunner({
				client: this.client,
				sessionId: () => this.id,
				attach: (toolCallId, terminalId) => this.tools.attachTerminal(toolCallId, terminalId),
			});
		}
		const approve = permissionHandler({
			client: () => this.client,
			sessionId: () => this.id,
			cwd: () => this.session.cwd,
		});
		return { toolBackends, ui: this.dialogs, cancelDialogs: () => this.dialogs.cancelAll(), approve };
	}

	/** Attaches the built AgentSession and starts mapping its events. */
	attach(session: AgentSession): void {
		this.agentSession = session;
		this.attachedId = session.session.id;
		const events = new SessionEvents({
			session,
			client: this.capabilities,
			tools: this.tools,
			send: (update) => this.updates.send(update),
			commandsChanged: () => this.refreshCommands(),
			replied: (message) => {
				this.lastReply = message;
			},
		});
		session.subscribe((event) => {
			if (event.type === "agent_settled") {
				for (const resolve of this.settleWaiters.splice(0)) resolve();
				this.refreshCommands();
			}
			return events.handle(event);
		});
		// After the response that names the session: clients route updates by a session they know.
		setImmediate(() => this.refreshCommands());
	}

	get id(): string {
		return this.attachedId;
	}

	get session(): AgentSession {
		if (!this.agentSession) throw new Error("The ACP session has no AgentSession yet");
		return this.agentSession;
	}

	configOptions(): SessionConfigOption[] {
		return configOptions(this.session, configOptionSupport(this.capabilities));
	}

	/** `session/set_config_option`: model, thinking level and (for clients that show booleans) the automatic switches. */
	setConfigOption(configId: string, value: string | boolean): void {
		setConfigOption(this.session, configOptionSupport(this.capabilities), configId, value);
	}

	/** The session modes (the approval modes) and the current one. */
	modes(): SessionModeState {
		return sessionModes(this.session);
	}

	async prompt(blocks: readonly ContentBlock[]): Promise<PromptResponse> {
		const input = await promptInput(blocks, (path) => readTextOrUndefined(this.files, path));
		const session = this.session;
		this.requireCredentials();
		try {
			if (session.isStreaming) {
				const settled = new Promise<void>((resolve) => this.settleWaiters.push(resolve));
				await session.prompt(input.text, { images: input.images, streamingBehavior: "steer" });
				await settled;
			} else {
				this.cancelled = false;
				this.lastReply = undefined;
				await session.prompt(input.text, { images: input.images });
			}
		} catch (error) {
			if (error instanceof RequestError) throw error;
			throw new RequestError(INTERNAL_ERROR, errorText(error));
		}
		await this.updates.drained();
		return { stopReason: this.stopReason() };
	}

	/** `session/cancel`: the run stops, open dialogs are dismissed, prompts answer `cancelled`. */
	async cancel(): Promise<void> {
		this.cancelled = true;
		this.dialogs.cancelAll();
		await this.session.abort();
	}

	/** Sends the whole active branch as updates; resolves once they are written. */
	async replay(): Promise<void> {
		await replayBranch(this.session.session.getBranch(), (update) => this.updates.send(update), this.tools);
		await this.updates.drained();
	}

	async close(): Promise<void> {
		if (this.closed) return;
		this.closed = true;
		this.cancelled = true;
		this.dialogs.cancelAll();
		await this.agentSession?.dispose();
		for (const resolve of this.settleWaiters.splice(0)) resolve();
		await this.updates.drained();
		this.updates.close();
	}

	/** Sends `available_commands_update` when the commands differ from the last ones sent. */
	refreshCommands(): void {
		if (this.closed || !this.agentSession) return;
		this.agentSession
			.getCommands()
			.then((commands) => {
				const available = availableCommands(commands);
				const key = JSON.stringify(available);
				if (this.closed || key === this.commandsSent) return;
				this.commandsSent = key;
				return this.updates.send({ sessionUpdate: "available_commands_update", availableCommands: available });
			})
			.catch((error: unknown) => process.stderr.write(`Warning: could not list commands: ${errorText(error)}\n`));
	}

	/** A prompt needs a model whose provider has a key: "authentication required" says how to give one. */
	private requireCredentials(): void {
		const session = this.session;
		const model = session.model;
		const ready = model ? session.availableModels().some((candidate) => candidate.provider === model.provider) : false;
		if (ready) return;
		const message = model
			? `No API key for ${model.provider}: set its environment variable or add it to auth.json, then try again.`
			: "No model is configured: set a provider's API key (environment or auth.json), or add one to models.json.";
		throw new RequestError(AUTH_REQUIRED, message, { provider: model?.provider ?? null });
	}

	private stopReason(): StopReason {
		const reply = this.lastReply;
		if (this.cancelled || reply?.stopReason === "aborted") return "cancelled";
		if (!reply) return "end_turn";
		if (reply.stopReason === "length") return "max_tokens";
		if (reply.stopReason === "error") {
			if (reply.error?.kind === "content_filter") return "refusal";
			throw new RequestError(INTERNAL_ERROR, reply.errorMessage ?? "The model request failed.", {
				kind: reply.error?.kind ?? null,
				status: reply.error?.status ?? null,
			});
		}
		return "end_turn";
	}
}
