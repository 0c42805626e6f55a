import type { AgentTool } from "../agent/types.js";
import type { ModelRegistry } from "../llm/model-registry.js";
import type { AgentSession } from "./agent-session.js";
import type { AgentSessionEvent } from "./events.js";
import type { BridgeHost } from "./extension-bridge.js";
import { extensionNotice } from "./extension-notices.js";
import { discoverResources, sessionControl } from "./extension-session-control.js";
import type { InputGate } from "./input-gate.js";
import type { ResourceState } from "./resource-state.js";

/** The parts of an AgentSession that extensions reach but its public API does not offer. */
export interface SessionInternals {
	input(): InputGate;
	resources: ResourceState;
	/** Runs a session write, reporting a failure as a warning. */
	record(write: () => unknown): void;
	emit(event: AgentSessionEvent): void;
	/** Recomputes the tool list and system prompt once extension tools exist. */
	refreshTools(): void;
	registry: ModelRegistry;
	/** The merged settings.json values. */
	settings(): Record<string, unknown>;
	/** The built-in tools for the current cwd. */
	builtInTools(): AgentTool[];
}

/** What extensions may do with a session (see ExtensionHost): always the session's current state. */
export function sessionExtensionHost(session: AgentSession, internals: SessionInternals): BridgeHost {
	return {
		get cwd() {
			return session.cwd;
		},
		get model() {
			return session.model;
		},
		sendMessage: (message, options) => internals.input().sendCustomMessage(message, options),
		sendUserMessage: (content, options) => internals.input().sendUserMessage(content, options),
		appendEntry: (customType, data) => internals.record(() => session.session.appendCustomEntry(customType, data)),
		getCommands: () => internals.resources.commandsNow(session.extensions.commands()),
		setModel: async (model) => {
			if (!session.availableModels().some((known) => known.provider === model.provider && known.id === model.id))
				return false;
			session.setModel(model.provider, model.id);
			return true;
		},
		isIdle: () => !session.isStreaming,
		abort: () => void session.abort(),
		hasPendingMessages: () => session.agent.queuedCount > 0,
		getContextUsage: () => session.getSessionStats().contextUsage,
		get session() {
			return session.session;
		},
		modelRegistry: internals.registry,
		get thinkingLevel() {
			return session.thinkingLevel;
		},
		setThinkingLevel: (level) => void session.setThinkingLevel(level),
		get systemPrompt() {
			return session.agent.config.systemPrompt ?? "";
		},
		setSessionName: (name) => session.setSessionName(name),
		setLabel: (entryId, label) => session.setLabel(entryId, label),
		allTools: () => session.extensions.everyTool(internals.builtInTools()),
		activeTools: () => session.agent.config.tools,
		refreshTools: () => internals.refreshTools(),
		settings: () => structuredClone(internals.settings()),
		compact: (query) => session.compact(query === undefined ? {} : { query }),
		control: sessionControl(session, internals.resources),
		reportError: (error) => {
			process.stderr.write(`Extension error (${error.event}) in ${error.extensionPath}: ${error.error}\n`);
			internals.emit({ type: "extension_error", ...error });
		},
		onLoaded: () => {
			internals.refreshTools();
			// Session notices reach extensions without holding up the session (handlers are not awaited).
			session.subscribe((event) => {
				const notice = extensionNotice(event, session.session, session.messages);
				if (notice) session.extensions.notify(notice);
			});
			void session.extensions.started("startup").then(() => discoverResources(session, internals.resources, "startup"));
		},
	};
}
