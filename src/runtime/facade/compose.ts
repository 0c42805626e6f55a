import { homedir } from "node:os";
import { Agent } from "../../agent/agent.js";
import type { AgentLoopConfig } from "../../agent/types.js";
import type { ExtensionUiBackend } from "../../extensions/ui-types.js";
import { agentDir } from "../../llm/config-paths.js";
import type { Model } from "../../llm/types.js";
import { Sandbox } from "../../sandbox/index.js";
import { ToolApprovals } from "../approvals/tool-approvals.js";
import { AutoCompaction } from "../compaction/auto-compaction.js";
import { CompactionControl } from "../compaction/compaction-control.js";
import { Conversation } from "../current/conversation.js";
import { CurrentSession } from "../current/current-session.js";
import { SessionSwitcher } from "../current/session-switcher.js";
import { TreeNavigation } from "../current/tree-navigation.js";
import { ExtensionBridge, type ExtensionSetup } from "../extensions/bridge.js";
import { sessionExtensionHost } from "../extensions/host.js";
import type { SessionFace } from "../extensions/session-face.js";
import { ModelFallback } from "../models/model-fallback.js";
import { ModelState } from "../models/model-state.js";
import { ProviderRequests } from "../models/provider-requests.js";
import { McpTools } from "../resources/mcp-tools.js";
import { ResourceState } from "../resources/resource-state.js";
import { ToolsAndPrompt } from "../resources/tools-and-prompt.js";
import { AbortTree } from "../runs/abort-tree.js";
import { Activity } from "../runs/activity.js";
import { DirectBash } from "../runs/direct-bash.js";
import { InputGate } from "../runs/input-gate.js";
import { placeholderModel } from "../runs/messages.js";
import { PromptRuns } from "../runs/prompt-runs.js";
import type { AgentSessionOptions } from "./api-types.js";
import { EventHub } from "./events.js";

/** The parts an AgentSession is made of; each owns one piece of its state. */
export interface SessionParts {
	events: EventHub;
	current: CurrentSession;
	models: ModelState;
	tree: AbortTree;
	activity: Activity;
	toolsAndPrompt: ToolsAndPrompt;
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
	sandbox: Sandbox;
}

/**
 * The composition root: builds the parts in dependency order and hands each the narrow parts it
 * reads, so every piece of state has one owner and everything else reads it there. `face` is the
 * session's public API, which extensions reach when they call back.
 */
export function composeSession(
	face: SessionFace & { readonly autoCompactionEnabled: boolean; contextTokens(): number | null },
	options: AgentSessionOptions,
): SessionParts {
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
	const toolsAndPrompt = new ToolsAndPrompt(
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
	const resources = new ResourceState(options.loadResources, toolsAndPrompt, events);
	resources.reload(current.cwd);
	const extensions = new ExtensionBridge(
		extensionSetup(options.extensions, tree, activity),
		sessionExtensionHost(face, {
			current,
			resources,
			toolsAndPrompt,
			events,
			registry: options.registry,
			settings: () => ({ ...options.settings.get() }),
			commandEnv: options.shellEnv,
		}),
		current.cwd,
	);
	toolsAndPrompt.addSource(() => extensions.tools());
	toolsAndPrompt.setFilter((tools) => extensions.filterActive(tools));
	const mcp = new McpTools({
		setup: options.mcp,
		env: options.env ?? process.env,
		settings: () => ({ user: options.settings.userSettings().mcp, effective: options.settings.get().mcp }),
		emit: (update) => void events.emit(update),
		toolsChanged: async () => toolsAndPrompt.invalidate(),
		warn: (message) => events.warn(message),
	});
	toolsAndPrompt.addSource(() => mcp.tools());

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
	const sandbox =
		options.sandbox ?? Sandbox.off({ home: homedir(), agentDir: agentDir(options.env) }, options.env?.PATH);
	const approvals = new ToolApprovals(
		{
			escalation: (context) => {
				if (context.toolCall.name !== "bash" || context.args.escalate !== true) return undefined;
				const policy = sandbox.policy(current.cwd);
				if (!policy) return undefined;
				const justification = context.args.justification;
				return { mode: policy.mode, justification: typeof justification === "string" ? justification : "" };
			},
			grantEscalation: (toolCallId) => sandbox.grantEscalation(toolCallId),
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
		config: loopConfig({ models, toolsAndPrompt, requests, extensions, autoCompaction, mcp, approvals }, options),
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
		prompt: toolsAndPrompt,
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
	// Prompts queued while a manual compaction ran go out once it ends (not after an abort).
	events.observe((event) => {
		if (event.type === "compaction_end" && event.reason === "manual") input.compactionEnded(event.aborted);
	});
	const switcher = new SessionSwitcher({
		factory: options.sessionFactory,
		extensions,
		current,
		tree,
		conversation,
		queues: agent,
		models,
		toolsAndPrompt,
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
		toolsAndPrompt,
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
		sandbox,
		mcp,
	};
}

/**
 * What the loop reads: model, level, tools and system prompt from their owners (the loop takes
 * them once per turn), the provider stream, and the hooks of extensions and compaction.
 */
function loopConfig(
	parts: Pick<SessionParts, "models" | "toolsAndPrompt" | "extensions" | "autoCompaction" | "mcp" | "approvals"> & {
		requests: ProviderRequests;
	},
	options: AgentSessionOptions,
): Omit<AgentLoopConfig, "getSteeringMessages" | "getFollowUpMessages"> {
	const { models, toolsAndPrompt, requests, extensions, autoCompaction, mcp, approvals } = parts;
	const none = placeholderModel();
	return {
		get model(): Model {
			return models.model ?? none;
		},
		get thinkingLevel() {
			return models.thinkingLevel;
		},
		get systemPrompt() {
			return toolsAndPrompt.systemPrompt;
		},
		get tools() {
			return toolsAndPrompt.tools;
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
