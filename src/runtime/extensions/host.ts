import type { ModelRegistry } from "../../llm/model-registry.js";
import type { CurrentSession } from "../current/current-session.js";
import type { EventHub } from "../facade/events.js";
import type { ResourceState } from "../resources/resource-state.js";
import type { ToolsAndPrompt } from "../resources/tools-and-prompt.js";
import type { BridgeHost } from "./bridge.js";
import { extensionNotice } from "./notices.js";
import { discoverResources, sessionControl } from "./session-control.js";
import type { SessionFace } from "./session-face.js";

/** The parts extensions reach beyond the session's public API. */
export interface ExtensionReach {
	current: CurrentSession;
	resources: ResourceState;
	toolsAndPrompt: ToolsAndPrompt;
	events: EventHub;
	registry: ModelRegistry;
	/** The merged settings.json values. */
	settings(): Record<string, unknown>;
	/** The environment of extensions' exec (default: this process's). */
	commandEnv?: NodeJS.ProcessEnv;
}

/**
 * What extensions may do with a session (see ExtensionHost). It reads the session through its
 * public face when called, so it always sees the current state.
 */
export function sessionExtensionHost(session: SessionFace, reach: ExtensionReach): BridgeHost {
	return {
		get cwd() {
			return session.cwd;
		},
		get model() {
			return session.model;
		},
		commandEnv: reach.commandEnv,
		sendMessage: (message, options) => session.sendCustomMessage(message, options),
		sendUserMessage: (content, options) => session.sendUserMessage(content, options),
		appendEntry: (customType, data) => reach.current.record((current) => current.appendCustomEntry(customType, data)),
		getCommands: () => reach.resources.commandsNow(session.extensions.commands()),
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
		modelRegistry: reach.registry,
		get thinkingLevel() {
			return session.thinkingLevel;
		},
		setThinkingLevel: (level) => void session.setThinkingLevel(level),
		get systemPrompt() {
			return reach.toolsAndPrompt.systemPrompt;
		},
		setSessionName: (name) => session.setSessionName(name),
		setLabel: (entryId, label) => session.setLabel(entryId, label),
		allTools: () => reach.toolsAndPrompt.everyTool,
		activeTools: () => reach.toolsAndPrompt.tools,
		refreshTools: () => reach.toolsAndPrompt.invalidate(),
		settings: () => structuredClone(reach.settings()),
		compact: (query) => session.compact(query === undefined ? {} : { query }),
		control: sessionControl(session, reach.resources),
		reportError: (error) => {
			process.stderr.write(`Extension error (${error.event}) in ${error.extensionPath}: ${error.error}\n`);
			void reach.events.emit({ type: "extension_error", ...error });
		},
		onLoaded: () => {
			// Their tools join the next turn's tool list and system prompt.
			reach.toolsAndPrompt.invalidate();
			// Session notices reach extensions without holding up the session (handlers are not awaited).
			session.subscribe((event) => {
				const notice = extensionNotice(event, session.session, session.messages);
				if (notice) session.extensions.notify(notice);
			});
			void session.extensions.started("startup").then(() => discoverResources(session, reach.resources, "startup"));
		},
	};
}
