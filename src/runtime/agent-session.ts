import { resolve } from "node:path";
import { Agent } from "../agent/agent.js";
import type { QueueMode } from "../agent/message-queue.js";
import type { AgentMessage } from "../agent/messages.js";
import type { AgentEvent } from "../agent/types.js";
import type { CompactionParameterInput, CompactionResult } from "../compaction/index.js";
import type { ModelRegistry } from "../llm/model-registry.js";
import type { ImageContent, Model, StreamOptions, ThinkingLevel, UserMessage } from "../llm/types.js";
import type { CommandInfo } from "../resources/commands.js";
import type { Session } from "../session/session.js";
import type { TreeNode } from "../session/types.js";
import type { AgentSessionOptions, PromptOptions, SessionState, StreamingBehavior } from "./agent-session-types.js";
import { AutoCompaction } from "./auto-compaction.js";
import type { BashResult } from "./bash-requests.js";
import { CompactionControl } from "./compaction-control.js";
import { DirectBash, type DirectBashOptions } from "./direct-bash.js";
import { type AgentSessionEvent, type AgentSessionListener, EventHub } from "./events.js";
import { placeholderModel, userMessage } from "./messages.js";
import { type CycleResult, publicModel } from "./model-control.js";
import { ModelSync } from "./model-sync.js";
import { ResourceState } from "./resource-state.js";
import { entriesOf, lastAssistantText, statsOf, treeOf } from "./session-queries.js";
import { SessionSlot } from "./session-slot.js";
import { estimateContextTokens, estimateTokens, type SessionStats } from "./stats.js";

export * from "./agent-session-types.js";
export const BUSY_PROMPT_MESSAGE =
	"Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.";
export const NO_MODEL_MESSAGE =
	"No model selected. Use set_model, --model, or configure a provider (see --list-models).";

/**
 * The SDK face of Atomic: one conversation with a model, tools and a session file. It composes
 * the agent loop (with its queues and retry policy), model control, direct bash requests and the
 * session store, persists what happens, and reports it to subscribers.
 */
export class AgentSession {
	readonly agent: Agent;
	readonly bash: DirectBash;
	readonly compaction: CompactionControl;
	private readonly modelSync: ModelSync;
	private readonly autoCompactor: AutoCompaction;
	/** True after a compaction until a reply reports fresh usage: the context size is unknown. */
	private contextUnknown = false;
	private readonly hub = new EventHub();
	private slot: SessionSlot;
	private cwdValue: string;
	private lifecycle = 0;
	private autoCompactionEnabled: boolean;
	private disposed = false;
	private readonly resources: ResourceState;

	constructor(private readonly options: AgentSessionOptions) {
		this.cwdValue = options.cwd;
		const context = options.session.buildContext();
		this.slot = new SessionSlot(options.session, context.model ? context.thinkingLevel : undefined);
		this.autoCompactionEnabled = options.autoCompaction ?? true;
		const tools = options.tools(this.cwdValue);
		this.agent = new Agent({
			config: {
				model: options.models.model ?? placeholderModel(),
				thinkingLevel: options.models.thinkingLevel,
				systemPrompt: options.systemPrompt(this.cwdValue, tools, []),
				tools,
				streamFunction: options.streamFunction,
				requestOptions: (model) => this.requestOptions(model),
			},
			messages: context.messages,
			steeringMode: options.steeringMode,
			followUpMode: options.followUpMode,
			retry: options.retry,
		});
		this.agent.subscribe((event) => this.onAgentEvent(event));
		this.modelSync = new ModelSync({
			models: options.models,
			config: this.agent.config,
			slot: () => this.slot,
			record: (write) => this.record(write),
			settings: options.settings,
			persistDefaults: options.persistDefaults ?? false,
		});
		this.bash = new DirectBash(
			{
				current: () => this.slot,
				isStreaming: () => this.isStreaming,
				cwd: () => this.cwdValue,
				record: (slot, message) => {
					this.record(() => slot.session.appendMessage(message));
					if (slot === this.slot) this.agent.messages.push(message);
				},
			},
			{ shellPath: options.shellPath, spillDir: options.spillDir },
		);
		this.resources = new ResourceState(
			options.loadResources,
			(resources, cwd) => {
				for (const diagnostic of resources.diagnostics)
					process.stderr.write(`${diagnostic.path}: ${diagnostic.message}\n`);
				if (this.cwdValue === cwd) {
					this.agent.config.systemPrompt = this.options.systemPrompt(cwd, this.agent.config.tools, resources.skills);
				}
			},
			(message) => this.warn(message),
		);
		this.resources.reload(this.cwdValue);
		this.compaction = new CompactionControl({
			session: () => this.slot.session,
			model: () => this.model,
			thinkingLevel: () => this.thinkingLevel,
			requestOptions: (model) => this.requestOptions(model),
			streamFunction: options.streamFunction,
			retrySettings: () => this.agent.retry.settings,
			settings: () => this.options.settings.get().compaction,
			contextTokens: () => this.contextTokens() ?? 0,
			emit: (event) => void this.hub.emit(event),
			applyContext: () => {
				this.agent.messages = this.slot.session.buildContext().messages;
				this.contextUnknown = true;
			},
		});
		this.autoCompactor = new AutoCompaction({
			agent: this.agent,
			compaction: this.compaction,
			model: () => this.model,
			enabled: () => this.autoCompactionEnabled,
			reserveTokens: () => this.options.settings.get().compaction?.reserveTokens,
			emit: (event) => void this.hub.emit(event),
		});
	}

	// ---------------------------------------------------------------- state

	get cwd(): string {
		return this.cwdValue;
	}

	get session(): Session {
		return this.slot.session;
	}

	get model(): Model | undefined {
		return this.options.models.model;
	}

	get thinkingLevel(): ThinkingLevel {
		return this.options.models.thinkingLevel;
	}

	get messages(): AgentMessage[] {
		return this.agent.messages;
	}

	/** True from a prompt's acceptance until its lifecycle settles. */
	get isStreaming(): boolean {
		return this.lifecycle > 0 || this.agent.isRunning;
	}

	get isCompacting(): boolean {
		return this.compaction.isCompacting;
	}

	getState(): SessionState {
		const session = this.slot.session;
		const state: SessionState = {
			model: this.model ? publicModel(this.model) : null,
			thinkingLevel: this.thinkingLevel,
			isStreaming: this.isStreaming,
			isCompacting: this.isCompacting,
			steeringMode: this.agent.steering.mode,
			followUpMode: this.agent.followUp.mode,
			sessionId: session.id,
			autoCompactionEnabled: this.autoCompactionEnabled,
			messageCount: this.agent.messages.length,
			pendingMessageCount: this.agent.queuedCount,
		};
		if (session.file) state.sessionFile = session.file;
		const name = session.name;
		if (name) state.sessionName = name;
		return state;
	}

	subscribe(listener: AgentSessionListener): () => void {
		return this.hub.subscribe(listener);
	}

	// ---------------------------------------------------------------- prompting

	/**
	 * Sends a prompt. Resolves when its whole lifecycle has settled (or at once when it was
	 * queued); rejects, before acceptance, when it cannot be taken. Failures after acceptance are
	 * reported as events (an error reply), never as a rejection.
	 */
	async prompt(text: string, options: PromptOptions = {}): Promise<void> {
		const blocked = this.options.models.blockedReason;
		if (blocked) throw new Error(blocked);
		const expanded = await this.resources.expand(text);
		// From here on nothing awaits before acceptance, so two prompts cannot both start a run.
		const message = userMessage(expanded, options.images);
		if (this.isStreaming) {
			if (!options.streamingBehavior) throw new Error(BUSY_PROMPT_MESSAGE);
			this.queue(options.streamingBehavior, message, expanded);
			options.onAccepted?.();
			return;
		}
		const model = this.model;
		if (!model) throw new Error(NO_MODEL_MESSAGE);
		this.options.registry.requestAuth(model);
		this.lifecycle++;
		try {
			this.bash.flushPending();
			this.modelSync.apply();
			options.onAccepted?.();
			await this.agent.prompt(message);
			await this.autoCompactor.settle();
		} finally {
			this.lifecycle--;
			await this.hub.emit({ type: "agent_settled" });
		}
	}

	/** Queues a steering message (delivered after the current turn's tools, before the next call). */
	async steer(text: string, images?: ImageContent[]): Promise<void> {
		const expanded = await this.resources.expand(text);
		this.queue("steer", userMessage(expanded, images), expanded);
	}

	/** Queues a follow-up (delivered when the agent would otherwise stop). */
	async followUp(text: string, images?: ImageContent[]): Promise<void> {
		const expanded = await this.resources.expand(text);
		this.queue("followUp", userMessage(expanded, images), expanded);
	}

	/** Prompt templates and skills usable as `/name`, in get_commands order. */
	getCommands(): Promise<CommandInfo[]> {
		return this.resources.commands();
	}

	private queue(behavior: StreamingBehavior, message: UserMessage, text: string): void {
		if (behavior === "followUp") this.agent.queueFollowUp(message, text);
		else this.agent.queueSteering(message, text);
	}

	/** Removes every queued message; returns their texts. */
	clearQueue(): { steering: string[]; followUp: string[] } {
		const cleared = this.agent.clearQueues();
		return { steering: cleared.steering.map((item) => item.text), followUp: cleared.followUp.map((item) => item.text) };
	}

	/** Aborts the current run (request, tools, retry delay) and any compaction; resolves once they ended. */
	async abort(): Promise<void> {
		this.agent.abort();
		this.compaction.abort();
		await this.agent.waitForIdle();
	}

	/**
	 * Compacts the conversation now (RPC `compact`). A run in progress is aborted first.
	 * Throws "Nothing to compact (session too small)", "Compaction cancelled" or the failure.
	 */
	async compact(options: CompactionParameterInput = {}): Promise<CompactionResult> {
		if (this.agent.isRunning) await this.abort();
		return this.compaction.compact("manual", options);
	}

	abortCompaction(): boolean {
		return this.compaction.abort();
	}

	setSteeringMode(mode: QueueMode): void {
		this.agent.steering.mode = mode;
	}

	setFollowUpMode(mode: QueueMode): void {
		this.agent.followUp.mode = mode;
	}

	setAutoCompaction(enabled: boolean): void {
		this.autoCompactionEnabled = enabled;
	}

	setAutoRetry(enabled: boolean): void {
		this.agent.retry.settings.enabled = enabled;
	}

	/** Cancels a retry delay in progress. */
	abortRetry(): boolean {
		return this.agent.retry.abortRetry();
	}

	// ---------------------------------------------------------------- models

	availableModels(): Model[] {
		return this.options.models.available();
	}

	setModel(provider: string, modelId: string): Model {
		return this.modelSync.setModel(provider, modelId);
	}

	cycleModel(direction?: "forward" | "backward"): CycleResult | undefined {
		return this.modelSync.cycleModel(direction);
	}

	setThinkingLevel(level: ThinkingLevel): ThinkingLevel {
		return this.modelSync.setThinkingLevel(level);
	}

	cycleThinkingLevel(): ThinkingLevel | undefined {
		return this.modelSync.cycleThinkingLevel();
	}

	availableThinkingLevels(): ThinkingLevel[] {
		return this.options.models.availableThinkingLevels();
	}

	/** Removes a provider's stored credential; returns what authenticates it now. */
	logoutProvider(provider: string): { authStatus: ReturnType<ModelRegistry["authStatus"]>; models: Model[] } {
		this.options.registry.credentials.remove(provider);
		return { authStatus: this.options.registry.authStatus(provider), models: this.availableModels() };
	}

	// ---------------------------------------------------------------- bash

	/**
	 * Runs a command the client asked for directly. The result is recorded once, in the session
	 * where the command started, as a bash execution message the model sees with the next prompt.
	 */
	executeBash(command: string, options: DirectBashOptions = {}): Promise<BashResult> {
		return this.bash.execute(command, options);
	}

	abortBash(requestId?: string): void {
		this.bash.abort(requestId);
	}

	// ---------------------------------------------------------------- session

	getEntries(since?: string): ReturnType<Session["entriesSince"]> {
		return entriesOf(this.slot.session, since);
	}

	getTree(): { tree: TreeNode[]; leafId: string | null } {
		return treeOf(this.slot.session);
	}

	getForkMessages(): { entryId: string; text: string }[] {
		return this.slot.session.userMessagesForForking();
	}

	setSessionName(name: string): void {
		this.slot.session.setName(name);
	}

	getLastAssistantText(): string | null {
		return lastAssistantText(this.agent.messages);
	}

	getSessionStats(): SessionStats {
		return statsOf(this.slot.session, this.model, this.contextTokens());
	}

	/** The current context size estimate; null right after a compaction until a reply reports usage. */
	contextTokens(): number | null {
		if (this.contextUnknown) return null;
		const messages = this.agent.messages;
		return estimateContextTokens(messages) ?? messages.reduce((sum, message) => sum + estimateTokens(message), 0);
	}

	/** Key, headers and transport options for a request to `model`. Throws when a key is missing. */
	private requestOptions(model: Model): StreamOptions {
		const auth = this.options.registry.requestAuth(model);
		return {
			apiKey: auth.apiKey,
			headers: auth.headers,
			thinkingBudgets: this.options.thinkingBudgets,
			idleTimeoutMs: this.options.streamIdleTimeoutMs,
			sessionId: this.slot.session.id,
		};
	}

	async newSession(options: { parentSession?: string } = {}): Promise<{ cancelled: boolean }> {
		await this.settleForReplacement();
		const session = this.options.sessionFactory.create({ cwd: this.cwdValue, parentSession: options.parentSession });
		this.replaceSession(session, "new");
		return { cancelled: false };
	}

	async switchSession(path: string): Promise<{ cancelled: boolean }> {
		await this.settleForReplacement();
		const session = this.options.sessionFactory.open(path);
		this.replaceSession(session, "switch");
		return { cancelled: false };
	}

	async fork(entryId: string): Promise<{ text: string; cancelled: boolean }> {
		await this.settleForReplacement();
		const { session, text } = this.slot.session.forkBefore(entryId);
		this.replaceSession(session, "fork");
		return { text, cancelled: false };
	}

	async clone(): Promise<{ cancelled: boolean }> {
		await this.settleForReplacement();
		const session = this.slot.session.cloneAtLeaf();
		this.replaceSession(session, "clone");
		return { cancelled: false };
	}

	/**
	 * Writes the session as one self-contained HTML file (default: `atomic-session-<id>.html` in the
	 * cwd). In-memory sessions export too, to an explicit outputPath.
	 */
	async exportHtml(outputPath?: string): Promise<string> {
		const session = this.slot.session;
		// Without a session file there is no natural place for the export: ask for one.
		if (!session.file && outputPath === undefined)
			throw new Error("Cannot export in-memory session to HTML without an outputPath");
		if (session.entries().length === 0) throw new Error("Nothing to export yet - start a conversation first");
		const { exportSessionHtml } = await import("../export/index.js");
		const target = resolve(this.cwdValue, outputPath ?? `atomic-session-${session.id}.html`);
		return exportSessionHtml(
			{
				header: session.header,
				entries: [...session.entries()],
				leafId: session.leafId,
				systemPrompt: this.agent.config.systemPrompt,
				tools: this.agent.config.tools.map(({ name, description }) => ({ name, description })),
			},
			target,
		);
	}

	/** Stops everything and closes the session file. Pending bash commands are cancelled first. */
	async dispose(): Promise<void> {
		if (this.disposed) return;
		this.disposed = true;
		this.agent.abort();
		await Promise.all([this.agent.waitForIdle(), this.bash.drain()]);
		this.bash.flushPending();
		this.slot.retire();
	}

	private async settleForReplacement(): Promise<void> {
		if (this.isStreaming) await this.abort();
		this.bash.flushPending();
	}

	private replaceSession(session: Session, reason: "new" | "switch" | "fork" | "clone" | "import"): void {
		const previous = this.slot;
		const context = session.buildContext();
		// A session with history brings its model and level back; a fresh one keeps the current ones.
		this.slot = new SessionSlot(session, context.model ? context.thinkingLevel : undefined);
		previous.retire();
		this.agent.clearQueues();
		if (session.cwd !== this.cwdValue) this.changeCwd(session.cwd);
		if (context.model) {
			const restored = this.options.registry.find(context.model.provider, context.model.modelId);
			if (restored) this.options.models.model = restored;
			this.options.models.setThinkingLevel(context.thinkingLevel);
		}
		this.modelSync.apply();
		this.agent.messages = context.messages;
		if (!context.model) this.modelSync.recordModel();
		this.modelSync.recordThinkingLevel();
		void this.hub.emit({ type: "session_changed", reason, sessionId: session.id, sessionFile: session.file });
	}

	private changeCwd(cwd: string): void {
		this.cwdValue = cwd;
		const tools = this.options.tools(cwd);
		this.agent.config.tools = tools;
		this.agent.config.systemPrompt = this.options.systemPrompt(cwd, tools, []);
		this.resources.reload(cwd);
	}

	// ---------------------------------------------------------------- persistence

	private onAgentEvent(event: AgentEvent): Promise<void> | undefined {
		if (event.type === "message_end") {
			const message = event.message;
			this.record(() => this.slot.session.appendMessage(message));
			if (message.role === "assistant" && message.stopReason !== "error" && message.stopReason !== "aborted") {
				this.contextUnknown = false;
			}
		}
		return this.hub.emit(event as AgentSessionEvent);
	}

	/** Runs a session write; a failure (disk full) is reported as a warning, never thrown into the run. */
	private record(write: () => unknown): void {
		try {
			write();
		} catch (error) {
			this.warn(`The session could not be saved: ${error instanceof Error ? error.message : String(error)}`);
		}
	}

	private warn(message: string): void {
		process.stderr.write(`Warning: ${message}\n`);
		void this.hub.emit({ type: "warning", message });
	}
}
