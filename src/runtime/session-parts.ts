import { Agent } from "../agent/agent.js";
import type { AgentMessage } from "../agent/messages.js";
import type { AgentEvent, AgentTool } from "../agent/types.js";
import type { Model, StreamOptions } from "../llm/types.js";
import type { AgentSession } from "./agent-session.js";
import type { AgentSessionOptions } from "./agent-session-types.js";
import { ToolApprovals } from "./approvals.js";
import { AutoCompaction } from "./auto-compaction.js";
import { CompactionControl } from "./compaction-control.js";
import { DirectBash } from "./direct-bash.js";
import type { AgentSessionEvent } from "./events.js";
import { ExtensionBridge } from "./extension-bridge.js";
import { InputGate, NO_MODEL_MESSAGE } from "./input-gate.js";
import { placeholderModel } from "./messages.js";
import { ModelSync } from "./model-sync.js";
import { ResourceState } from "./resource-state.js";
import { sessionExtensionHost } from "./session-extension-host.js";
import type { SessionSlot } from "./session-slot.js";
import { type Replacement, SessionSwitcher } from "./session-switcher.js";
import { TreeNavigation } from "./tree-navigation.js";

/**
 * What the parts of an AgentSession reach back for: its public face, its current state, and the
 * operations only the session itself performs.
 */
export interface PartsHost {
	readonly session: AgentSession;
	readonly options: AgentSessionOptions;
	slot(): SessionSlot;
	autoCompactionEnabled(): boolean;
	/** After a compaction: the context size is unknown until the next reply reports usage. */
	markContextUnknown(): void;
	requestOptions(model: Model): StreamOptions;
	allTools(cwd: string): AgentTool[];
	onAgentEvent(event: AgentEvent): Promise<void> | undefined;
	run(messages: AgentMessage[] | "continue", onAccepted?: () => void, abortAtStart?: boolean): Promise<void>;
	adopt(session: SessionSlot["session"], reason: Replacement): void;
	/** Runs a session write, reporting a failure as a warning. */
	record(write: () => unknown): void;
	recordMessage(message: AgentMessage): void;
	warn(message: string): void;
	emit(event: AgentSessionEvent): void;
}

export interface SessionParts {
	agent: Agent;
	modelSync: ModelSync;
	bash: DirectBash;
	resources: ResourceState;
	compaction: CompactionControl;
	extensions: ExtensionBridge;
	input: InputGate;
	switcher: SessionSwitcher;
	navigation: TreeNavigation;
	autoCompactor: AutoCompaction;
	approvals: ToolApprovals;
}

/**
 * Builds the parts an AgentSession composes and wires them to each other and to the session:
 * the agent loop, model control, direct bash, resources, compaction, extensions, the input gate,
 * session replacement and tree navigation. Every callback reads the session's current state.
 */
export function createSessionParts(host: PartsHost, messages: AgentMessage[]): SessionParts {
	const { session, options } = host;
	const cwd = () => session.cwd;
	const tools = options.tools(session.cwd);
	const agent: Agent = new Agent({
		config: {
			model: options.models.model ?? placeholderModel(),
			thinkingLevel: options.models.thinkingLevel,
			systemPrompt: options.systemPrompt(session.cwd, tools, []),
			tools,
			streamFunction: options.streamFunction,
			requestOptions: (model) => host.requestOptions(model),
			beforeToolCall: (context, signal) => extensions.beforeToolCall(context, signal),
			afterToolCall: (context, signal) => extensions.afterToolCall(context, signal),
			// After the extensions' tool_call hook: a call they block is never asked about.
			approveToolCall: (context, signal) => approvals.check(context, signal),
			// Compaction rebuilds agent.messages in place: the array the loop runs on.
			afterToolBatch: () => autoCompactor.afterToolBatch(),
		},
		messages,
		steeringMode: options.steeringMode,
		followUpMode: options.followUpMode,
		retry: options.retry,
	});
	agent.subscribe((event) => host.onAgentEvent(event));
	const modelSync = new ModelSync({
		models: options.models,
		config: agent.config,
		slot: () => host.slot(),
		record: (write) => host.record(write),
		settings: options.settings,
		persistDefaults: options.persistDefaults ?? false,
	});
	const bash = new DirectBash(
		{
			current: () => host.slot(),
			isStreaming: () => session.isStreaming,
			cwd,
			record: (slot, message) => {
				host.record(() => slot.session.appendMessage(message));
				if (slot === host.slot()) agent.messages.push(message);
			},
		},
		{ shellPath: options.shellPath, spillDir: options.spillDir },
	);
	const resources = new ResourceState(
		options.loadResources,
		(loaded, loadedFor) => {
			for (const diagnostic of loaded.diagnostics) process.stderr.write(`${diagnostic.path}: ${diagnostic.message}\n`);
			if (session.cwd === loadedFor) {
				agent.config.systemPrompt = options.systemPrompt(loadedFor, agent.config.tools, loaded.skills);
			}
		},
		(message) => host.warn(message),
	);
	resources.reload(session.cwd);
	const sideRequests = {
		session: () => host.slot().session,
		model: () => session.model,
		thinkingLevel: () => session.thinkingLevel,
		requestOptions: (model: Model) => host.requestOptions(model),
		streamFunction: options.streamFunction,
		retrySettings: () => agent.retry.settings,
		emit: (event: AgentSessionEvent) => host.emit(event),
	};
	// In place: a run in progress holds this array and goes on with the rebuilt context.
	const applyContext = () => {
		const rebuilt = host.slot().session.buildContext().messages;
		agent.messages.length = 0;
		for (const message of rebuilt) agent.messages.push(message);
	};
	const compaction = new CompactionControl({
		...sideRequests,
		settings: () => options.settings.get().compaction,
		contextTokens: () => session.contextTokens() ?? 0,
		applyContext: () => {
			applyContext();
			host.markContextUnknown();
		},
	});
	const extensions: ExtensionBridge = new ExtensionBridge(
		options.extensions,
		sessionExtensionHost(session, {
			input: () => input,
			resources,
			record: (write) => host.record(write),
			emit: (event) => host.emit(event),
			refreshTools: () => {
				const all = host.allTools(session.cwd);
				agent.config.tools = all;
				void resources.current.then((loaded) => {
					agent.config.systemPrompt = options.systemPrompt(session.cwd, all, loaded.skills);
				});
			},
		}),
		session.cwd,
	);
	const input: InputGate = new InputGate({
		agent,
		resources,
		extensions,
		isStreaming: () => session.isStreaming,
		blockedReason: () => options.models.blockedReason,
		checkModel: () => {
			const model = session.model;
			if (!model) throw new Error(NO_MODEL_MESSAGE);
			options.registry.requestAuth(model);
		},
		run: (queued, onAccepted, abortAtStart) => host.run(queued, onAccepted, abortAtStart),
		warn: (message) => host.warn(message),
		append: (message) => {
			host.recordMessage(message);
			agent.messages.push(message);
		},
	});
	const switcher = new SessionSwitcher({
		factory: options.sessionFactory,
		extensions,
		current: () => host.slot(),
		cwd,
		settle: async () => {
			if (session.isStreaming) await session.abort();
			bash.flushPending();
		},
		adopt: (replacement, kind) => host.adopt(replacement, kind),
	});
	const navigation = new TreeNavigation({ ...sideRequests, isStreaming: () => session.isStreaming, applyContext });
	const autoCompactor: AutoCompaction = new AutoCompaction({
		agent,
		compaction,
		model: () => session.model,
		enabled: () => host.autoCompactionEnabled(),
		reserveTokens: () => options.settings.get().compaction?.reserveTokens,
		contextTokens: () => session.contextTokens(),
		emit: (event) => host.emit(event),
	});
	const approvals: ToolApprovals = new ToolApprovals(
		{
			cwd,
			session: () => host.slot().session,
			record: (write) => host.record(write),
			emit: (event) => host.emit(event),
		},
		options.permissions,
		options.approve,
	);
	return {
		agent,
		modelSync,
		bash,
		resources,
		compaction,
		extensions,
		input,
		switcher,
		navigation,
		autoCompactor,
		approvals,
	};
}
