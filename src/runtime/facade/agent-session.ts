import type { Agent } from "../../agent/agent.js";
import type { QueueMode } from "../../agent/message-queue.js";
import type { AgentMessage } from "../../agent/messages.js";
import type { AgentEvent } from "../../agent/types.js";
import type { CompactionParameterInput, CompactionResult } from "../../compaction/index.js";
import type { CustomMessageInput, SendMessageOptions, SendUserMessageOptions } from "../../extensions/index.js";
import type { ModelRegistry } from "../../llm/model-registry.js";
import type { AssistantMessage, ImageContent, Model, TextContent, ThinkingLevel } from "../../llm/types.js";
import type { McpServerInfo } from "../../mcp/types.js";
import type { ApprovalMode } from "../../permissions/index.js";
import type { CommandInfo } from "../../resources/commands.js";
import type { SandboxMode, SandboxState } from "../../sandbox/index.js";
import type { SessionInfo } from "../../session/listing.js";
import type { Session } from "../../session/session.js";
import type { TreeNode } from "../../session/types.js";
import type { CompactionControl } from "../compaction/compaction-control.js";
import {
	contextSizeKnown,
	entriesOf,
	exportHtmlFile,
	lastAssistantText,
	statsOf,
	treeOf,
} from "../current/session-queries.js";
import { contextUsage, estimateContextTokens, estimateTokens, type SessionStats } from "../current/stats.js";
import type { NavigateOptions, NavigateResult } from "../current/tree-navigation.js";
import type { ExtensionBridge } from "../extensions/bridge.js";
import { announced, navigateAnnounced } from "../extensions/notices.js";
import type { CycleResult } from "../models/model-selection.js";
import type { McpTools } from "../resources/mcp-tools.js";
import type { BashResult } from "../runs/bash-requests.js";
import type { DirectBash, DirectBashOptions } from "../runs/direct-bash.js";
import { interruptedCalls } from "../runs/interrupted-calls.js";
import type { AgentSessionOptions, PromptOptions, SessionState } from "./api-types.js";
import { composeSession, type SessionParts } from "./compose.js";
import type { AgentSessionListener } from "./events.js";
import { DEFAULT_HEARTBEAT_MS, Heartbeat } from "./heartbeat.js";
import { STATELESS_EVENTS, StateTracker } from "./state-tracker.js";
import { StateValueCache } from "./state-value-cache.js";

export { BUSY_PROMPT_MESSAGE, NO_MODEL_MESSAGE } from "../runs/input-gate.js";
export * from "./api-types.js";

/**
 * The SDK face of Atomic: one conversation with a model, tools and a session file. Its parts are
 * built in session-parts.ts, each owning one piece of state (the current session, the model and
 * thinking level, the tools and system prompt, the conversation, the prompt runs, the abort
 * tree); this class is their public API, and it reports every change of get_state as
 * `state_changed`, context usage after each reply and compaction, and heartbeats while busy.
 */
export class AgentSession {
	readonly agent: Agent;
	readonly bash: DirectBash;
	readonly compaction: CompactionControl;
	readonly extensions: ExtensionBridge;
	/** The session's MCP servers: their tools, prompts and status; `mcp.add` starts more (ACP). */
	readonly mcp: McpTools;
	private readonly parts: SessionParts;
	private readonly state: StateTracker;
	private readonly heartbeat: Heartbeat;
	/** Tools running now, by call id: each counts as "tool" activity until it ends. */
	private readonly runningTools = new Map<string, () => void>();
	private autoCompaction: boolean;
	private disposed = false;
	private readonly stateValues = new StateValueCache();

	constructor(private readonly options: AgentSessionOptions) {
		this.autoCompaction = options.autoCompaction ?? true;
		this.parts = composeSession(this, options);
		const { agent, bash, compaction, extensions, events, activity, mcp } = this.parts;
		this.mcp = mcp;
		this.agent = agent;
		this.bash = bash;
		this.compaction = compaction;
		this.extensions = extensions;
		agent.subscribe((event) => this.onAgentEvent(event));
		this.state = new StateTracker(
			() => this.sharedState(),
			(changes) => void events.emit({ type: "state_changed", changes }),
		);
		this.heartbeat = new Heartbeat(
			options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
			() => (this.isStreaming || this.isCompacting ? (activity.waitingOn ?? "provider") : undefined),
			(waitingOn, idleMs) => void events.emit({ type: "heartbeat", waitingOn, idleMs }),
		);
		events.observe((event) => {
			this.heartbeat.touch();
			// A prompt's last event comes after what its lifecycle changed has been announced.
			if (event.type === "agent_settled") this.state.flush();
			else if (!STATELESS_EVENTS.has(event.type)) this.state.schedule();
			if (event.type === "compaction_end") this.reportContextUsage();
		});
	}

	// ---------------------------------------------------------------- state

	/** The working directory: the current session's. */
	get cwd(): string {
		return this.parts.current.cwd;
	}

	get session(): Session {
		return this.parts.current.session;
	}

	get model(): Model | undefined {
		return this.parts.models.model;
	}

	get thinkingLevel(): ThinkingLevel {
		return this.parts.models.thinkingLevel;
	}

	get messages(): AgentMessage[] {
		return this.parts.conversation.messages;
	}

	/** True from a prompt's acceptance until its lifecycle settles. */
	get isStreaming(): boolean {
		return this.parts.runs.isStreaming;
	}

	get isCompacting(): boolean {
		return this.parts.compaction.isCompacting;
	}

	get autoCompactionEnabled(): boolean {
		return this.autoCompaction;
	}

	getState(): SessionState {
		// The caller's own copy: the tracker's reads share the model and tool list from one read to the next.
		const state = this.sharedState();
		return { ...state, model: state.model ? { ...state.model } : null, tools: [...state.tools] };
	}

	/** The state, its model and tool list shared with earlier reads while they are unchanged. */
	private sharedState(): SessionState {
		const { agent, current, input } = this.parts;
		const session = current.session;
		const state: SessionState = {
			model: this.model ? this.stateValues.publicModel(this.model) : null,
			thinkingLevel: this.thinkingLevel,
			isStreaming: this.isStreaming,
			isCompacting: this.isCompacting,
			steeringMode: agent.steering.mode,
			followUpMode: agent.followUp.mode,
			sessionId: session.id,
			autoCompactionEnabled: this.autoCompaction,
			messageCount: this.messages.length,
			pendingMessageCount: agent.queuedCount,
			queuedMessagesPaused: input.paused,
			approvalMode: this.parts.approvals.mode,
			tools: this.stateValues.toolNames(this.parts.toolsAndPrompt.tools),
			sandbox: this.parts.sandbox.state(),
		};
		if (session.file) state.sessionFile = session.file;
		const name = session.name;
		if (name) state.sessionName = name;
		return state;
	}

	/** Announces (as `state_changed`) whatever changed since the last announcement, now. */
	flushState(): void {
		this.state.flush();
	}

	subscribe(listener: AgentSessionListener): () => void {
		return this.parts.events.subscribe(listener);
	}

	/** Quiet time after which a busy session sends a heartbeat; 0 turns heartbeats off. */
	setHeartbeatInterval(ms: number): void {
		this.heartbeat.setInterval(ms);
	}

	// ---------------------------------------------------------------- prompting

	/**
	 * Sends a prompt. Resolves when its whole lifecycle has settled (or at once when it was
	 * queued); rejects, before acceptance, when it cannot be taken. Failures after acceptance are
	 * reported as events (an error reply), never as a rejection.
	 */
	prompt(text: string, options: PromptOptions = {}): Promise<void> {
		return this.changes(this.parts.input.prompt(text, options));
	}

	/**
	 * Carries out the tool calls of the last reply that its run left without results (the process
	 * stopped while they waited for an approval or ran), asking for approval as any call, then
	 * goes on as after any tool calls. Resolves false at once when there are none or a run is
	 * active; else true when that run has settled.
	 */
	async resumeInterruptedCalls(): Promise<boolean> {
		if (this.parts.runs.isStreaming) return false;
		const interrupted = interruptedCalls(this.parts.agent.messages);
		if (!interrupted) return false;
		interrupted.take();
		await this.changes(this.parts.runs.run({ resume: interrupted.found }));
		return true;
	}

	/** Queues a steering message (delivered after the current turn's tools, before the next call). */
	steer(text: string, images?: ImageContent[]): Promise<void> {
		return this.changes(this.parts.input.steer(text, images));
	}

	/** Queues a follow-up (delivered when the agent would otherwise stop). */
	followUp(text: string, images?: ImageContent[]): Promise<void> {
		return this.changes(this.parts.input.followUp(text, images));
	}

	/** A custom message (an extension's `pi.sendMessage`), delivered as its options say. */
	sendCustomMessage(message: CustomMessageInput, options?: SendMessageOptions): Promise<void> {
		return this.changes(this.parts.input.sendCustomMessage(message, options));
	}

	/** A user message (an extension's `pi.sendUserMessage`): a prompt when idle, else queued per `deliverAs`. */
	sendUserMessage(content: string | (TextContent | ImageContent)[], options?: SendUserMessageOptions): Promise<void> {
		return this.changes(this.parts.input.sendUserMessage(content, options));
	}

	/** Extension commands, prompt templates, skills and MCP server prompts usable as `/name`. */
	async getCommands(): Promise<CommandInfo[]> {
		await this.extensions.ready;
		return [...(await this.parts.resources.commands(this.extensions.commands())), ...this.mcp.commands()];
	}

	/** Every configured MCP server with its status and tools (RPC `get_mcp_servers`). */
	getMcpServers(): Promise<McpServerInfo[]> {
		return this.mcp.servers();
	}

	/** Removes every queued message; returns their texts. */
	clearQueue(): { steering: string[]; followUp: string[] } {
		const cleared = this.agent.clearQueues();
		return { steering: cleared.steering.map((item) => item.text), followUp: cleared.followUp.map((item) => item.text) };
	}

	/**
	 * Aborts everything running: the prompt's run (its provider request, tools and child
	 * processes, retry delay, compactions), a prompt still being accepted, a manual compaction, a
	 * branch summary, and open dialogs. Resolves once every one of them has stopped (the run's
	 * agent_end and agent_settled were emitted). Queued messages stay queued.
	 */
	abort(): Promise<void> {
		return this.parts.tree.abortAll();
	}

	/**
	 * Compacts the conversation now (RPC `compact`). A run in progress is aborted first.
	 * Throws "Nothing to compact (session too small)", "Compaction cancelled" or the failure.
	 * `onStarted` is called once the compaction runs (isCompacting is true). Prompts that arrive
	 * while it runs are queued, and delivered when it ends (unless it was cancelled).
	 */
	async compact(
		options: CompactionParameterInput = {},
		{ onStarted }: { onStarted?(): void } = {},
	): Promise<CompactionResult> {
		if (this.isStreaming) await this.abort();
		return this.changes(this.parts.compaction.compact("manual", options, { onStarted }));
	}

	abortCompaction(): boolean {
		return this.parts.compaction.abort();
	}

	setSteeringMode(mode: QueueMode): void {
		this.agent.steering.mode = mode;
		this.state.schedule();
	}

	setFollowUpMode(mode: QueueMode): void {
		this.agent.followUp.mode = mode;
		this.state.schedule();
	}

	setAutoCompaction(enabled: boolean): void {
		this.autoCompaction = enabled;
		this.state.schedule();
	}

	setAutoRetry(enabled: boolean): void {
		this.agent.retry.settings.enabled = enabled;
	}

	/** How tool calls are approved: `auto`, `ask` or `read-only`. */
	get approvalMode(): ApprovalMode {
		return this.parts.approvals.mode;
	}

	/** For this process (not saved); open requests are judged again. Throws below the project's mode. */
	setApprovalMode(mode: ApprovalMode): void {
		this.changed(this.parts.approvals.setMode(mode));
	}

	/** The sandbox of the model's commands: mode, network, whether it can be made here. */
	get sandbox(): SandboxState {
		return this.parts.sandbox.state();
	}

	/**
	 * For this process (not saved). Throws below the project's mode. A mode other than off on a
	 * machine where the sandbox cannot be made is set all the same: bash calls are then refused.
	 */
	setSandboxMode(mode: SandboxMode): void {
		this.parts.sandbox.setMode(mode);
		this.changed(undefined);
	}

	/** Cancels a retry delay in progress. */
	abortRetry(): boolean {
		return this.agent.retry.abortRetry();
	}

	// ---------------------------------------------------------------- models

	availableModels(): Model[] {
		return this.parts.models.available();
	}

	setModel(provider: string, modelId: string): Model {
		return this.changed(announced(this.extensions, this, "set", () => this.parts.models.setModel(provider, modelId)));
	}

	cycleModel(direction?: "forward" | "backward"): CycleResult | undefined {
		return this.changed(announced(this.extensions, this, "cycle", () => this.parts.models.cycleModel(direction)));
	}

	setThinkingLevel(level: ThinkingLevel): ThinkingLevel {
		return this.changed(announced(this.extensions, this, "set", () => this.parts.models.setThinkingLevel(level)));
	}

	cycleThinkingLevel(): ThinkingLevel | undefined {
		return this.changed(announced(this.extensions, this, "cycle", () => this.parts.models.cycleThinkingLevel()));
	}

	availableThinkingLevels(): ThinkingLevel[] {
		return this.parts.models.availableThinkingLevels();
	}

	/** Problems found when the model was resolved (an unknown --thinking value, an unmatched --model). */
	get modelWarnings(): string[] {
		return this.parts.models.warnings;
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
		const cwd = this.cwd;
		return this.changes(
			this.bash.execute(command, {
				...options,
				// Extensions may answer the command (user_bash); the request is abortable meanwhile.
				intercept: async () => {
					await this.extensions.ready;
					return this.extensions.userBash(command, { excludeFromContext, cwd });
				},
			}),
		);
	}

	abortBash(requestId?: string): void {
		this.bash.abort(requestId);
	}

	// ---------------------------------------------------------------- session

	getEntries(since?: string): ReturnType<Session["entriesSince"]> {
		return entriesOf(this.session, since);
	}

	getTree(): { tree: TreeNode[]; leafId: string | null } {
		return treeOf(this.session);
	}

	getForkMessages(): { entryId: string; text: string }[] {
		return this.session.userMessagesForForking();
	}

	setSessionName(name: string): void {
		this.session.setName(name);
		this.state.schedule();
		this.extensions.notify({ type: "session_info_changed", name: this.session.name });
	}

	getLastAssistantText(): string | null {
		return lastAssistantText(this.messages);
	}

	getSessionStats(): SessionStats {
		return statsOf(this.session, this.model, this.contextTokens());
	}

	/** The current context size estimate; null after a compaction until a reply reports usage. */
	contextTokens(): number | null {
		if (!contextSizeKnown(this.session)) return null;
		const messages = this.messages;
		return estimateContextTokens(messages) ?? messages.reduce((sum, message) => sum + estimateTokens(message), 0);
	}

	/** The sessions stored for `cwd` (default: the current folder), most recently active first. */
	storedSessions(cwd?: string): SessionInfo[] {
		return this.parts.switcher.storedSessions(cwd);
	}

	newSession(options: { parentSession?: string } = {}): Promise<{ cancelled: boolean }> {
		return this.changes(this.parts.switcher.newSession(options));
	}

	switchSession(path: string): Promise<{ cancelled: boolean }> {
		return this.changes(this.parts.switcher.switchSession(path));
	}

	fork(entryId: string): Promise<{ text: string; cancelled: boolean }> {
		return this.changes(this.parts.switcher.fork(entryId));
	}

	clone(): Promise<{ cancelled: boolean }> {
		return this.changes(this.parts.switcher.clone());
	}

	importSession(inputPath: string, cwdOverride?: string): Promise<{ cancelled: boolean }> {
		return this.changes(this.parts.switcher.importSession(inputPath, cwdOverride));
	}

	/** Moves the active leaf to another entry (optionally summarising the branch left). */
	navigateTree(targetId: string, options: NavigateOptions = {}): Promise<NavigateResult> {
		const { navigation } = this.parts;
		return this.changes(
			navigateAnnounced(this.extensions, this.session, this.isStreaming, navigation, targetId, options),
		);
	}

	/** Sets or (without a label) clears an entry's label. Throws `Entry <id> not found`. */
	setLabel(entryId: string, label?: string): void {
		this.session.setLabel(entryId, label?.trim() || undefined);
	}

	/** While paused, prompts are queued (even when idle) and queued messages wait. */
	pauseQueuedMessages(): void {
		this.parts.input.pause();
		this.state.schedule();
	}

	/** Ends a pause; queued messages are delivered (a run starts when the agent is idle). */
	resumeQueuedMessages(): { released: boolean } {
		return this.changed(this.parts.input.resume());
	}

	/**
	 * Writes the session as one self-contained HTML file (default: `atomic-session-<id>.html` in the
	 * cwd). In-memory sessions export too, to an explicit outputPath.
	 */
	exportHtml(outputPath?: string): Promise<string> {
		const { toolsAndPrompt } = this.parts;
		const config = { systemPrompt: toolsAndPrompt.systemPrompt, tools: toolsAndPrompt.tools };
		return exportHtmlFile(this.session, this.cwd, config, outputPath);
	}

	/** Stops everything and closes the session file. Pending bash commands are cancelled first. */
	/**
	 * Ends the session for a restart of the process, keeping an unfinished run resumable: the file
	 * is closed first, so what the run's end would add (results for tool calls still waiting for
	 * an approval) is not written, and the next process can carry those calls out
	 * (resumeInterruptedCalls). Everything written before is on disk.
	 */
	async suspend(): Promise<void> {
		if (this.disposed) return;
		this.parts.conversation.flushPendingBash();
		this.parts.current.slot.retire();
		await this.dispose();
	}

	async dispose(): Promise<void> {
		if (this.disposed) return;
		this.disposed = true;
		this.heartbeat.stop();
		await this.extensions.leaving("quit");
		await Promise.all([this.abort(), this.bash.drain(), this.mcp.close()]);
		this.parts.conversation.flushPendingBash();
		this.parts.current.slot.retire();
		this.parts.sandbox.dispose();
	}

	// ---------------------------------------------------------------- events

	private onAgentEvent(event: AgentEvent): Promise<void> | undefined {
		if (event.type === "message_end") this.parts.conversation.record(event.message);
		// The loop appends a reply after its message_end: what could not be saved leaves at agent_end.
		else if (event.type === "agent_end") this.parts.conversation.endRun();
		else if (event.type === "tool_execution_start") {
			this.runningTools.set(event.toolCallId, this.parts.activity.enter("tool"));
		} else if (event.type === "tool_execution_end") {
			this.runningTools.get(event.toolCallId)?.();
			this.runningTools.delete(event.toolCallId);
		}
		const toClients = this.parts.events.emit(event);
		if (event.type === "message_end" && event.message.role === "assistant") this.reportContextUsage(event.message);
		const toExtensions = this.extensions.emit(event);
		if (!toExtensions) return toClients;
		return Promise.all([toClients, toExtensions]).then(() => undefined);
	}

	/**
	 * `context_usage`: the figures get_session_stats reports, after a compaction or after `reply`
	 * (announced at its message_end, before it joins the conversation, so it is counted here).
	 */
	private reportContextUsage(reply?: AssistantMessage): void {
		const usage = contextUsage(this.model?.contextWindow ?? 0, this.contextTokens(), reply);
		if (usage) void this.parts.events.emit({ type: "context_usage", ...usage });
	}

	/** A change by a synchronous call: announced at the next turn of the event loop (or a flush). */
	private changed<T>(result: T): T {
		this.state.schedule();
		return result;
	}

	/** A change by asynchronous work: announced once it settles, whatever the outcome. */
	private changes<T>(work: Promise<T>): Promise<T> {
		return work.finally(() => this.state.schedule());
	}
}
