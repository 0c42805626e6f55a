import { Agent } from "../agent/agent.js";
import type { AgentLoopConfig } from "../agent/types.js";
import type { ExtensionUiBackend } from "../extensions/ui-types.js";
import type { Model } from "../llm/types.js";
import { AbortTree } from "./abort-tree.js";
import { Activity } from "./activity.js";
import type { AgentSession } from "./agent-session.js";
import type { AgentSessionOptions } from "./agent-session-types.js";
import { ToolApprovals } from "./approvals.js";
import { AutoCompaction } from "./auto-compaction.js";
import { Capabilities } from "./capabilities.js";
import { CompactionControl } from "./compaction-control.js";
import { Conversation } from "./conversation.js";
import { CurrentSession } from "./current-session.js";
import { DirectBash } from "./direct-bash.js";
import { EventHub } from "./events.js";
import { ExtensionBridge, type ExtensionSetup } from "./extension-bridge.js";
import { InputGate } from "./input-gate.js";
import { McpTools } from "./mcp-tools.js";
import { placeholderModel } from "./messages.js";
import { ModelFallback } from "./model-fallback.js";
import { ModelState } from "./model-state.js";
import { PromptRuns } from "./prompt-runs.js";
import { ProviderRequests } from "./provider-requests.js";
import { ResourceState } from "./resource-state.js";
import { sessionExtensionHost } from "./session-extension-host.js";
import { SessionSwitcher } from "./session-switcher.js";
import { TreeNavigation } from "./tree-navigation.js";

/** The parts an AgentSession is made of; each owns one piece of its state. */
export interface SessionParts {
	events: EventHub;
	current: CurrentSession;
	models: ModelState;
	tree: AbortTree;
	activity: Activity;
	capabilities: Capabilities;
	conversation: Conversation;
	resources: ResourceState;
	extensions: ExtensionBridge;
	compaction: CompactionControl;
	autoCompaction: AutoCompaction;
	agent: Agent;
	runs: PromptRuns;
	bash: DirectBash;
	input: InputGate;
	switcher: SessionSwitcher;
	navigation: TreeNavigation;
	approvals: ToolApprovals;
	mcp: McpTools;
}

/**
 * The composition root: builds the parts in dependency order and hands each the narrow parts it
 * reads, so every piece of state has one owner and everything else reads it there. `face` is the
 * session's public API, which extensions reach when they call back.
 */
export function composeSession(face: AgentSession, options: AgentSessionOptions): SessionParts {
	const events = new EventHub();
	const current = new CurrentSession(options.session, events);
	const models = new ModelState(
		options.registry,
		options.settings,
		options.modelChoices ?? {},
		current,
		options.persistDefaults ?? false,
	);
	const tree = new AbortTree();
	const activity = new Activity();
	const requests = new ProviderRequests(options.registry, current, options);
	const capabilities = new Capabilities(
		{ builtIn: options.tools, systemPrompt: options.systemPrompt },
		options.session.cwd,
	);
	// The runs are built below; the conversation reaches them only once a message is recorded.
	const conversation: Conversation = new Conversation(current, {
		get isStreaming(): boolean {
			return runs.isStreaming;
		},
		stop: (): void => runs.active?.operation.cancel(),
	});
	const resources = new ResourceState(options.loadResources, capabilities, events);
	resources.reload(current.cwd);
	const extensions = new ExtensionBridge(
		extensionSetup(options.extensions, tree, activity),
		sessionExtensionHost(face, {
			current,
			resources,
			capabilities,
			events,
			registry: options.registry,
			settings: () => ({ ...options.settings.get() }),
			commandEnv: options.shellEnv,
		}),
		current.cwd,
	);
	capabilities.addSource(() => extensions.tools());
	capabilities.setFilter((tools) => extensions.filterActive(tools));
	const mcp = new McpTools({
		setup: options.mcp,
		env: options.env ?? process.env,
		settings: () => ({ user: options.settings.userSettings().mcp, effective: options.settings.get().mcp }),
		emit: (update) => void events.emit(update),
		toolsChanged: async () => capabilities.invalidate(),
		warn: (message) => events.warn(message),
	});
	capabilities.addSource(() => mcp.tools());

	const sideRequests = { streamFunction: options.streamFunction, requests, models, retry: options.retry, events };
	const compaction = new CompactionControl({
		...sideRequests,
		current,
		tree,
		activity,
		conversation,
		settings: () => options.settings.get().compaction,
		contextTokens: () => face.contextTokens() ?? 0,
	});
	const autoCompaction = new AutoCompaction({
		conversation,
		compaction,
		models,
		events,
		enabled: () => face.autoCompactionEnabled,
		reserveTokens: () => options.settings.get().compaction?.reserveTokens,
		contextTokens: () => face.contextTokens(),
	});
	const approvals = new ToolApprovals(
		{
			cwd: () => current.cwd,
			session: () => current.session,
			record: (write) => current.record(write),
			emit: (event) => void events.emit(event),
			waiting: () => activity.enter("approval"),
		},
		options.permissions,
		options.approve,
	);
	// Like dialogs: an abort denies every open request; a new current session brings its own grants.
	tree.onAbort(() => approvals.cancelAll());
	events.observe((event) => {
		if (event.type === "session_changed") approvals.adopt(current.session);
	});
	const agent = new Agent({
		config: loopConfig({ models, capabilities, requests, extensions, autoCompaction, mcp, approvals }, options),
		messages: conversation.messages,
		steeringMode: options.steeringMode,
		followUpMode: options.followUpMode,
		retry: options.retry,
		reportListenerError: (error) => events.warn(`An event listener failed: ${errorMessage(error)}`),
	});
	const fallback = new ModelFallback({
		models,
		events,
		tiers: () => options.fallbackModels ?? [],
		contextTokens: () => face.contextTokens(),
	});
	const runs: PromptRuns = new PromptRuns({
		agent,
		tree,
		activity,
		autoCompaction,
		fallback,
		conversation,
		events,
		extensions,
		prompt: capabilities,
	});
	const bash = new DirectBash({ current, runs, conversation }, options);
	// Server prompts (`/mcp__<server>__<prompt>`) expand like prompt templates.
	const expansions = { expand: async (text: string) => (await mcp.expand(text)) ?? resources.expand(text) };
	const input = new InputGate({
		agent,
		resources: expansions,
		extensions,
		runs,
		tree,
		models,
		conversation,
		events,
		requests,
		compaction,
	});
	const switcher = new SessionSwitcher({
		factory: options.sessionFactory,
		extensions,
		current,
		tree,
		conversation,
		queues: agent,
		models,
		capabilities,
		resources,
		events,
	});
	const navigation = new TreeNavigation({ ...sideRequests, current, models, tree, runs, conversation });
	return {
		events,
		current,
		models,
		tree,
		activity,
		capabilities,
		conversation,
		resources,
		extensions,
		compaction,
		autoCompaction,
		agent,
		runs,
		bash,
		input,
		switcher,
		navigation,
		approvals,
		mcp,
	};
}

/**
 * What the loop reads: model, level, tools and system prompt from their owners (the loop takes
 * them once per turn), the provider stream, and the hooks of extensions and compaction.
 */
function loopConfig(
	parts: Pick<SessionParts, "models" | "capabilities" | "extensions" | "autoCompaction" | "mcp" | "approvals"> & {
		requests: ProviderRequests;
	},
	options: AgentSessionOptions,
): Omit<AgentLoopConfig, "getSteeringMessages" | "getFollowUpMessages"> {
	const { models, capabilities, requests, extensions, autoCompaction, mcp, approvals } = parts;
	const none = placeholderModel();
	return {
		get model(): Model {
			return models.model ?? none;
		},
		get thinkingLevel() {
			return models.thinkingLevel;
		},
		get systemPrompt() {
			return capabilities.systemPrompt;
		},
		get tools() {
			return capabilities.tools;
		},
		streamFunction: options.streamFunction,
		// A turn waits for MCP servers still starting, so the model sees their tools.
		beforeTurn: (signal) => mcp.beforeModelRequest(signal),
		requestOptions: (model) => requests.options(model),
		beforeToolCall: extensions.beforeToolCall,
		transformContext: extensions.transformContext,
		afterToolCall: extensions.afterToolCall,
		// After the extensions' tool_call hook: a call they block is never asked about.
		approveToolCall: approvals.check,
		// Compaction rebuilds the conversation in place: the array the loop runs on.
		afterToolBatch: (_messages, signal) => autoCompaction.afterToolBatch(signal),
	};
}

/**
 * The extension setup with its dialogs in the session's abort tree: an abort resolves every
 * open dialog with its default, and an open dialog is what a heartbeat reports.
 */
function extensionSetup(
	setup: ExtensionSetup | undefined,
	tree: AbortTree,
	activity: Activity,
): ExtensionSetup | undefined {
	if (!setup) return undefined;
	const cancelDialogs = setup.cancelDialogs;
	if (cancelDialogs) tree.onAbort(cancelDialogs);
	return setup.ui ? { ...setup, ui: trackedDialogs(setup.ui, activity) } : setup;
}

/** A UI backend whose open dialogs count as "dialog" activity. */
function trackedDialogs(ui: ExtensionUiBackend, activity: Activity): ExtensionUiBackend {
	const track = <T>(dialog: Promise<T>): Promise<T> => {
		const leave = activity.enter("dialog");
		return dialog.finally(leave);
	};
	return {
		select: (title, choices, opts) => track(ui.select(title, choices, opts)),
		confirm: (title, message, opts) => track(ui.confirm(title, message, opts)),
		input: (title, placeholder, opts) => track(ui.input(title, placeholder, opts)),
		editor: (title, prefill) => track(ui.editor(title, prefill)),
		notify: (message, type) => ui.notify(message, type),
		setStatus: (key, text) => ui.setStatus(key, text),
		setWidget: (key, lines, placement) => ui.setWidget(key, lines, placement),
		setTitle: (title) => ui.setTitle(title),
		setEditorText: (text) => ui.setEditorText(text),
	};
}

function errorMessage(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}
