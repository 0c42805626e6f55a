import { resolve } from "node:path";
import { Agent } from "../agent/agent.js";
import type { QueueMode } from "../agent/message-queue.js";
import { type AgentMessage, messageText } from "../agent/messages.js";
import type { RetryPolicy } from "../agent/retry.js";
import type { AgentEvent, AgentTool, StreamFunction } from "../agent/types.js";
import type { CompactionParameterInput, CompactionResult } from "../compaction/index.js";
import type { ModelRegistry } from "../llm/model-registry.js";
import type { AssistantMessage, ImageContent, Model, StreamOptions, ThinkingLevel, UserMessage } from "../llm/types.js";
import { type CommandInfo, expandInput, listCommands } from "../resources/commands.js";
import type { LoadedResources } from "../resources/load-resources.js";
import type { SettingsStore } from "../resources/settings.js";
import type { Skill } from "../resources/skills.js";
import type { Session } from "../session/session.js";
import type { TreeNode } from "../session/types.js";
import { AutoCompaction } from "./auto-compaction.js";
import { BashRequests, type BashResult, bashExecutionMessage } from "./bash-requests.js";
import { CompactionControl } from "./compaction-control.js";
import { type AgentSessionEvent, type AgentSessionListener, EventHub } from "./events.js";
import { type CycleResult, type ModelControl, publicModel } from "./model-control.js";
import { SessionSlot } from "./session-slot.js";
import { estimateContextTokens, estimateTokens, type SessionStats, sessionStats } from "./stats.js";

export const BUSY_PROMPT_MESSAGE =
	"Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.";
export const NO_MODEL_MESSAGE =
	"No model selected. Use set_model, --model, or configure a provider (see --list-models).";

export type StreamingBehavior = "steer" | "followUp";

export interface PromptOptions {
	images?: ImageContent[];
	/** Required while the agent is streaming: queue as steering or as a follow-up. */
	streamingBehavior?: StreamingBehavior;
	/**
	 * Called once, synchronously, when the prompt is accepted (queued, or about to run) and before
	 * any event of its run. A prompt that is rejected throws instead and never calls it.
	 */
	onAccepted?(): void;
}

/** Creates and opens sessions for replacements (new, switch, fork, clone). */
export interface SessionFactory {
	create(options: { cwd: string; parentSession?: string }): Session;
	open(path: string): Session;
}

export interface AgentSessionOptions {
	cwd: string;
	registry: ModelRegistry;
	settings: SettingsStore;
	models: ModelControl;
	session: Session;
	sessionFactory: SessionFactory;
	tools: (cwd: string) => AgentTool[];
	systemPrompt: (cwd: string, tools: AgentTool[], skills: Skill[]) => string;
	/** Skills and prompt templates of a working directory (loaded in the background). */
	loadResources: (cwd: string) => Promise<LoadedResources>;
	streamFunction: StreamFunction;
	retry: RetryPolicy;
	steeringMode?: QueueMode;
	followUpMode?: QueueMode;
	autoCompaction?: boolean;
	shellPath?: string;
	/** Where truncated bash outputs are written in full. */
	spillDir?: string;
	thinkingBudgets?: Partial<Record<ThinkingLevel, number>>;
	streamIdleTimeoutMs?: number;
	/** Whether model and thinking choices are saved as the user's defaults. */
	persistDefaults?: boolean;
}

export interface SessionState {
	model: Omit<Model, "headers"> | null;
	thinkingLevel: ThinkingLevel;
	isStreaming: boolean;
	isCompacting: boolean;
	steeringMode: QueueMode;
	followUpMode: QueueMode;
	sessionFile?: string;
	sessionId: string;
	sessionName?: string;
	autoCompactionEnabled: boolean;
	messageCount: number;
	pendingMessageCount: number;
}

/**
 * The SDK face of Atomic: one conversation with a model, tools and a session file. It composes
 * the agent loop (with its queues and retry policy), model control, direct bash requests and the
 * session store, persists what happens, and reports it to subscribers.
 */
export class AgentSession {
	readonly agent: Agent;
	readonly bash = new BashRequests();
	readonly compaction: CompactionControl;
	private readonly autoCompactor: AutoCompaction;
	/** True after a compaction until a reply reports fresh usage: the context size is unknown. */
	private contextUnknown = false;
	private readonly hub = new EventHub();
	private slot: SessionSlot;
	private cwdValue: string;
	private lifecycle = 0;
	private autoCompactionEnabled: boolean;
	private disposed = false;
	private resources: Promise<LoadedResources>;

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
		this.resources = this.startLoadingResources();
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
		const expanded = await this.expand(text);
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
			this.flushPendingBash();
			this.applyModel();
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
		const expanded = await this.expand(text);
		this.queue("steer", userMessage(expanded, images), expanded);
	}

	/** Queues a follow-up (delivered when the agent would otherwise stop). */
	async followUp(text: string, images?: ImageContent[]): Promise<void> {
		const expanded = await this.expand(text);
		this.queue("followUp", userMessage(expanded, images), expanded);
	}

	/** Prompt templates and skills usable as `/name`, in get_commands order. */
	async getCommands(): Promise<CommandInfo[]> {
		const { templates, skills } = await this.resources;
		return listCommands({ extensionCommands: [], templates, skills });
	}

	/** Expands `/skill:name` and `/template` input. */
	private async expand(text: string): Promise<string> {
		if (!text.startsWith("/")) return text;
		return expandInput(text, await this.resources);
	}

	private startLoadingResources(): Promise<LoadedResources> {
		const cwd = this.cwdValue;
		const loading = this.options.loadResources(cwd).catch((error: unknown): LoadedResources => {
			this.warn(
				`Skills and prompt templates could not be loaded: ${error instanceof Error ? error.message : String(error)}`,
			);
			return { skills: [], templates: [], diagnostics: [] };
		});
		return loading.then((resources) => {
			for (const diagnostic of resources.diagnostics)
				process.stderr.write(`${diagnostic.path}: ${diagnostic.message}\n`);
			if (this.cwdValue === cwd) {
				this.agent.config.systemPrompt = this.options.systemPrompt(cwd, this.agent.config.tools, resources.skills);
			}
			return resources;
		});
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
		const before = this.model;
		const model = this.options.models.setModel(provider, modelId);
		this.afterModelChange(before);
		return model;
	}

	cycleModel(direction?: "forward" | "backward"): CycleResult | undefined {
		const before = this.model;
		const result = this.options.models.cycle(direction);
		if (result) this.afterModelChange(before);
		return result;
	}

	setThinkingLevel(level: ThinkingLevel): ThinkingLevel {
		const before = this.thinkingLevel;
		const applied = this.options.models.setThinkingLevel(level);
		if (applied !== before) this.recordThinkingLevel();
		return applied;
	}

	cycleThinkingLevel(): ThinkingLevel | undefined {
		const level = this.options.models.cycleThinkingLevel();
		if (level !== undefined) this.recordThinkingLevel();
		return level;
	}

	availableThinkingLevels(): ThinkingLevel[] {
		return this.options.models.availableThinkingLevels();
	}

	/** Removes a provider's stored credential; returns what authenticates it now. */
	logoutProvider(provider: string): { authStatus: ReturnType<ModelRegistry["authStatus"]>; models: Model[] } {
		this.options.registry.credentials.remove(provider);
		return { authStatus: this.options.registry.authStatus(provider), models: this.availableModels() };
	}

	private afterModelChange(before: Model | undefined): void {
		const model = this.model;
		if (!model) return;
		this.applyModel();
		const changed = !before || before.provider !== model.provider || before.id !== model.id;
		if (changed) this.record(() => this.slot.session.appendModelChange(model.provider, model.id));
		this.recordThinkingLevel();
		if (this.options.persistDefaults) {
			this.options.settings.update({
				defaultProvider: model.provider,
				defaultModel: model.id,
				defaultThinkingLevel: this.thinkingLevel,
			});
		}
	}

	private recordThinkingLevel(): void {
		const level = this.thinkingLevel;
		const slot = this.slot;
		if (slot.thinkingLevel !== level) {
			this.record(() => slot.session.appendThinkingLevelChange(level));
			slot.thinkingLevel = level;
		}
		this.agent.config.thinkingLevel = level;
		if (this.options.persistDefaults) this.options.settings.update({ defaultThinkingLevel: level });
	}

	/** Copies the current model and level into the loop's config (takes effect at the next turn). */
	private applyModel(): void {
		if (this.model) this.agent.config.model = this.model;
		this.agent.config.thinkingLevel = this.thinkingLevel;
	}

	// ---------------------------------------------------------------- bash

	/**
	 * Runs a command the client asked for directly. The result is recorded once, in the session
	 * where the command started, as a bash execution message the model sees with the next prompt.
	 */
	async executeBash(
		command: string,
		options: {
			requestId?: string | number;
			excludeFromContext?: boolean;
			onData?(channel: "stdout" | "stderr", delta: string): void;
		} = {},
	): Promise<BashResult> {
		const slot = this.slot;
		slot.acquire();
		try {
			const result = await this.bash.run(command, {
				requestId: options.requestId,
				cwd: this.cwdValue,
				shellPath: this.options.shellPath,
				spillDir: this.options.spillDir,
				onData: options.onData,
			});
			const message = bashExecutionMessage(command, result, options.excludeFromContext === true);
			if (slot === this.slot && this.isStreaming) slot.pendingBash.push(message);
			else this.recordBash(slot, message);
			return result;
		} finally {
			slot.release();
		}
	}

	abortBash(requestId?: string): void {
		this.bash.abort(requestId);
	}

	private recordBash(slot: SessionSlot, message: AgentMessage): void {
		this.record(() => slot.session.appendMessage(message));
		if (slot === this.slot) this.agent.messages.push(message);
	}

	private flushPendingBash(): void {
		for (const message of this.slot.pendingBash.splice(0)) this.recordBash(this.slot, message);
	}

	// ---------------------------------------------------------------- session

	getEntries(since?: string): ReturnType<Session["entriesSince"]> {
		const session = this.slot.session;
		if (since !== undefined) return session.entriesSince(since);
		return { entries: [...session.entries()], leafId: session.leafId };
	}

	getTree(): { tree: TreeNode[]; leafId: string | null } {
		return { tree: this.slot.session.getTree(), leafId: this.slot.session.leafId };
	}

	getForkMessages(): { entryId: string; text: string }[] {
		return this.slot.session.userMessagesForForking();
	}

	setSessionName(name: string): void {
		this.slot.session.setName(name);
	}

	/** Text of the last assistant reply, or null when there is none. */
	getLastAssistantText(): string | null {
		for (let index = this.agent.messages.length - 1; index >= 0; index--) {
			const message = this.agent.messages[index] as AgentMessage;
			if (message.role !== "assistant") continue;
			const text = messageText(message).trim();
			if (message.stopReason === "aborted" && !text) continue;
			return text || null;
		}
		return null;
	}

	getSessionStats(): SessionStats {
		const session = this.slot.session;
		return sessionStats({
			sessionFile: session.file,
			sessionId: session.id,
			entries: session.entries(),
			model: this.model,
			contextTokens: this.contextTokens(),
		});
	}

	/** The current context size estimate (reported usage of the last reply plus later messages). */
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
	 * cwd). In-memory sessions export too: everything is in memory anyway.
	 */
	async exportHtml(outputPath?: string): Promise<string> {
		const session = this.slot.session;
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
		this.flushPendingBash();
		this.slot.retire();
	}

	private async settleForReplacement(): Promise<void> {
		if (this.isStreaming) await this.abort();
		this.flushPendingBash();
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
		this.applyModel();
		this.agent.messages = context.messages;
		if (!context.model && this.model) {
			const model = this.model;
			this.record(() => session.appendModelChange(model.provider, model.id));
		}
		this.recordThinkingLevel();
		void this.hub.emit({ type: "session_changed", reason, sessionId: session.id, sessionFile: session.file });
	}

	private changeCwd(cwd: string): void {
		this.cwdValue = cwd;
		const tools = this.options.tools(cwd);
		this.agent.config.tools = tools;
		this.agent.config.systemPrompt = this.options.systemPrompt(cwd, tools, []);
		this.resources = this.startLoadingResources();
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

function userMessage(text: string, images: ImageContent[] | undefined): UserMessage {
	if (!images?.length) return { role: "user", content: [{ type: "text", text }], timestamp: Date.now() };
	return { role: "user", content: [{ type: "text", text }, ...images], timestamp: Date.now() };
}

/** Stands in for the loop's model while none is selected; prompts are refused before it is used. */
function placeholderModel(): Model {
	return {
		id: "none",
		name: "No model",
		api: "anthropic-messages",
		provider: "none",
		baseUrl: "",
		reasoning: false,
		input: ["text"],
		contextWindow: 0,
		maxTokens: 0,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
	};
}

export type { AssistantMessage };
