import type { Agent } from "../agent/agent.js";
import type { QueueMode } from "../agent/message-queue.js";
import type { AgentMessage } from "../agent/messages.js";
import type { AgentEvent, AgentTool } from "../agent/types.js";
import type { CompactionParameterInput, CompactionResult } from "../compaction/index.js";
import type { ModelRegistry } from "../llm/model-registry.js";
import type { ImageContent, Model, StreamOptions, ThinkingLevel } from "../llm/types.js";
import type { ApprovalMode } from "../permissions/index.js";
import type { CommandInfo } from "../resources/commands.js";
import type { Session } from "../session/session.js";
import type { TreeNode } from "../session/types.js";
import type { AgentSessionOptions, PromptOptions, SessionState } from "./agent-session-types.js";
import type { ToolApprovals } from "./approvals.js";
import type { AutoCompaction } from "./auto-compaction.js";
import type { BashResult } from "./bash-requests.js";
import type { CompactionControl } from "./compaction-control.js";
import type { DirectBash, DirectBashOptions } from "./direct-bash.js";
import { type AgentSessionEvent, type AgentSessionListener, EventHub } from "./events.js";
import type { ExtensionBridge } from "./extension-bridge.js";
import type { InputGate } from "./input-gate.js";
import { type CycleResult, publicModel } from "./model-control.js";
import type { ModelSync } from "./model-sync.js";
import type { ResourceState } from "./resource-state.js";
import { createSessionParts } from "./session-parts.js";
import {
	entriesOf,
	exportHtmlFile,
	lastAssistantText,
	recordedThinkingLevel,
	statsOf,
	treeOf,
} from "./session-queries.js";
import { SessionSlot } from "./session-slot.js";
import type { Replacement, SessionSwitcher } from "./session-switcher.js";
import { estimateContextTokens, estimateTokens, type SessionStats } from "./stats.js";
import type { NavigateOptions, NavigateResult, TreeNavigation } from "./tree-navigation.js";

export * from "./agent-session-types.js";
export { BUSY_PROMPT_MESSAGE, NO_MODEL_MESSAGE } from "./input-gate.js";

/**
 * The SDK face of Atomic: one conversation with a model, tools and a session file. It composes
 * the agent loop (with its queues and retry policy), model control, direct bash requests and the
 * session store, persists what happens, and reports it to subscribers. The parts are built and
 * wired in session-parts.ts; this class holds the state they share and the public API.
 */
export class AgentSession {
	readonly agent: Agent;
	readonly bash: DirectBash;
	readonly compaction: CompactionControl;
	private readonly modelSync: ModelSync;
	readonly extensions: ExtensionBridge;
	private readonly input: InputGate;
	private readonly switcher: SessionSwitcher;
	private readonly navigation: TreeNavigation;
	private readonly autoCompactor: AutoCompaction;
	private readonly approvals: ToolApprovals;
	/** True after a compaction until a reply reports fresh usage: the context size is unknown. */
	private contextUnknown = false;
	private readonly hub = new EventHub();
	private slot: SessionSlot;
	private cwdValue: string;
	private lifecycle = 0;
	/** Counts aborts, so that a prompt waiting for a compaction before it can tell it was aborted. */
	private aborts = 0;
	private autoCompactionEnabled: boolean;
	private disposed = false;
	private readonly resources: ResourceState;

	constructor(private readonly options: AgentSessionOptions) {
		this.cwdValue = options.cwd;
		this.slot = new SessionSlot(options.session, recordedThinkingLevel(options.session));
		this.autoCompactionEnabled = options.autoCompaction ?? true;
		const parts = createSessionParts(
			{
				session: this,
				options,
				slot: () => this.slot,
				autoCompactionEnabled: () => this.autoCompactionEnabled,
				markContextUnknown: () => {
					this.contextUnknown = true;
				},
				requestOptions: (model) => this.requestOptions(model),
				allTools: (cwd) => this.allTools(cwd),
				onAgentEvent: (event) => this.onAgentEvent(event),
				run: (messages, onAccepted, abortAtStart) => this.run(messages, onAccepted, abortAtStart),
				adopt: (session, reason) => this.adopt(session, reason),
				record: (write) => this.record(write),
				recordMessage: (message) => this.recordMessage(message),
				warn: (message) => this.warn(message),
				emit: (event) => void this.hub.emit(event),
			},
			options.session.buildContext().messages,
		);
		this.agent = parts.agent;
		this.modelSync = parts.modelSync;
		this.bash = parts.bash;
		this.resources = parts.resources;
		this.compaction = parts.compaction;
		this.extensions = parts.extensions;
		this.input = parts.input;
		this.switcher = parts.switcher;
		this.navigation = parts.navigation;
		this.autoCompactor = parts.autoCompactor;
		this.approvals = parts.approvals;
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
			queuedMessagesPaused: this.input.paused,
			approvalMode: this.approvals.mode,
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
	prompt(text: string, options: PromptOptions = {}): Promise<void> {
		return this.input.prompt(text, options);
	}

	/** Queues a steering message (delivered after the current turn's tools, before the next call). */
	steer(text: string, images?: ImageContent[]): Promise<void> {
		return this.input.steer(text, images);
	}

	/** Queues a follow-up (delivered when the agent would otherwise stop). */
	followUp(text: string, images?: ImageContent[]): Promise<void> {
		return this.input.followUp(text, images);
	}

	/** Runs one prompt lifecycle: the run, automatic compaction and continuations, then agent_settled. */
	private async run(
		messages: AgentMessage[] | "continue",
		onAccepted?: () => void,
		abortAtStart = false,
	): Promise<void> {
		this.lifecycle++;
		try {
			this.bash.flushPending();
			this.modelSync.apply();
			this.agent.config.tools = this.allTools(this.cwdValue);
			onAccepted?.();
			const aborts = this.aborts;
			if (messages !== "continue") await this.autoCompactor.beforePrompt(!this.contextUnknown);
			const running = messages === "continue" ? this.agent.continue() : this.agent.prompt(messages);
			// An abort during that compaction also ends the prompt, which still runs so that it is recorded.
			if (abortAtStart || this.aborts !== aborts) this.agent.abort();
			await running;
			await this.autoCompactor.settle();
		} finally {
			this.lifecycle--;
			await this.hub.emit({ type: "agent_settled" });
		}
	}

	/** Prompt templates and skills usable as `/name`, in get_commands order. */
	async getCommands(): Promise<CommandInfo[]> {
		await this.extensions.ready;
		return this.resources.commands(this.extensions.commands());
	}

	/** Removes every queued message; returns their texts. */
	clearQueue(): { steering: string[]; followUp: string[] } {
		const cleared = this.agent.clearQueues();
		return { steering: cleared.steering.map((item) => item.text), followUp: cleared.followUp.map((item) => item.text) };
	}

	/** Aborts the current run (request, tools, retry delay) and any compaction; resolves once they ended. */
	async abort(): Promise<void> {
		this.aborts++;
		this.input.abortPending();
		this.agent.abort();
		this.compaction.abort();
		this.navigation.abort();
		this.extensions.cancelDialogs();
		this.approvals.cancelAll();
		await this.input.settled();
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

	/** How tool calls are approved (`auto`, `ask`, `read-only`). */
	get approvalMode(): ApprovalMode {
		return this.approvals.mode;
	}

	/**
	 * Sets the approval mode for this process (not saved). Open requests the new mode decides end
	 * at once. Throws when the mode is looser than the project's `.atomic/settings.json` allows.
	 */
	setApprovalMode(mode: ApprovalMode): void {
		this.approvals.setMode(mode);
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
		const excludeFromContext = options.excludeFromContext === true;
		return this.bash.execute(command, {
			...options,
			// Extensions may answer the command (user_bash); the request is abortable meanwhile.
			intercept: async () => {
				await this.extensions.ready;
				return this.extensions.userBash(command, { excludeFromContext, cwd: this.cwdValue });
			},
		});
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

	newSession(options: { parentSession?: string } = {}): Promise<{ cancelled: boolean }> {
		return this.switcher.newSession(options);
	}

	switchSession(path: string): Promise<{ cancelled: boolean }> {
		return this.switcher.switchSession(path);
	}

	fork(entryId: string): Promise<{ text: string; cancelled: boolean }> {
		return this.switcher.fork(entryId);
	}

	clone(): Promise<{ cancelled: boolean }> {
		return this.switcher.clone();
	}

	importSession(inputPath: string, cwdOverride?: string): Promise<{ cancelled: boolean }> {
		return this.switcher.importSession(inputPath, cwdOverride);
	}

	/** Moves the active leaf to another entry (optionally summarising the branch left). */
	navigateTree(targetId: string, options: NavigateOptions = {}): Promise<NavigateResult> {
		return this.navigation.navigate(targetId, options);
	}

	/** Sets or (without a label) clears an entry's label. Throws `Entry <id> not found`. */
	setLabel(entryId: string, label?: string): void {
		this.slot.session.setLabel(entryId, label?.trim() || undefined);
	}

	/** While paused, prompts are queued (even when idle) and queued messages wait. */
	pauseQueuedMessages(): void {
		this.input.pause();
	}

	/** Ends a pause; queued messages are delivered (a run starts when the agent is idle). */
	resumeQueuedMessages(): { released: boolean } {
		return this.input.resume();
	}

	/**
	 * Writes the session as one self-contained HTML file (default: `atomic-session-<id>.html` in the
	 * cwd). In-memory sessions export too, to an explicit outputPath.
	 */
	exportHtml(outputPath?: string): Promise<string> {
		return exportHtmlFile(this.slot.session, this.cwdValue, this.agent.config, outputPath);
	}

	/** Stops everything and closes the session file. Pending bash commands are cancelled first. */
	async dispose(): Promise<void> {
		if (this.disposed) return;
		this.disposed = true;
		await this.extensions.leaving("quit");
		this.approvals.cancelAll();
		this.agent.abort();
		await Promise.all([this.agent.waitForIdle(), this.bash.drain()]);
		this.bash.flushPending();
		this.slot.retire();
	}

	private adopt(session: Session, reason: Replacement): void {
		const previous = this.slot;
		const context = session.buildContext();
		// A session brings back the model and level it recorded; a fresh one keeps the current ones.
		const recordedLevel = recordedThinkingLevel(session);
		this.slot = new SessionSlot(session, recordedLevel);
		previous.retire();
		this.approvals.adopt(session);
		this.agent.clearQueues();
		if (session.cwd !== this.cwdValue) this.changeCwd(session.cwd);
		if (context.model) {
			const restored = this.options.registry.find(context.model.provider, context.model.modelId);
			if (restored) this.options.models.model = restored;
		}
		if (recordedLevel !== undefined) this.options.models.setThinkingLevel(context.thinkingLevel);
		this.modelSync.apply();
		this.agent.messages = context.messages;
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
			this.recordMessage(message);
			if (message.role === "assistant" && message.stopReason !== "error" && message.stopReason !== "aborted") {
				this.contextUnknown = false;
			}
		}
		const toClients = this.hub.emit(event as AgentSessionEvent);
		const toExtensions = this.extensions.emit(event);
		if (!toExtensions) return toClients;
		return Promise.all([toClients, toExtensions]).then(() => undefined);
	}

	/** Persists a finished message: custom messages as custom_message entries, the rest as message entries. */
	private recordMessage(message: AgentMessage): void {
		const session = this.slot.session;
		if (message.role !== "custom") {
			this.record(() => session.appendMessage(message));
			return;
		}
		const { customType, content, display, details, excludeFromContext } = message;
		this.record(() => session.appendCustomMessage({ customType, content, display, details, excludeFromContext }));
	}

	/** Built-in tools plus extension tools (an extension tool with a built-in's name replaces it). */
	private allTools(cwd: string): AgentTool[] {
		const extra = this.extensions.tools();
		if (extra.length === 0) return this.options.tools(cwd);
		const names = new Set(extra.map((tool) => tool.name));
		return [...this.options.tools(cwd).filter((tool) => !names.has(tool.name)), ...extra];
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
