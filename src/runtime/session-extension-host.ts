import type { AgentSession } from "./agent-session.js";
import type { Capabilities } from "./capabilities.js";
import type { CurrentSession } from "./current-session.js";
import type { EventHub } from "./events.js";
import type { BridgeHost } from "./extension-bridge.js";
import type { ResourceState } from "./resource-state.js";

/** The parts extensions reach beyond the session's public API. */
export interface ExtensionReach {
	current: CurrentSession;
	resources: ResourceState;
	capabilities: Capabilities;
	events: EventHub;
}

/**
 * What extensions may do with a session (see ExtensionHost). It reads the session through its
 * public face when called, so it always sees the current state.
 */
export function sessionExtensionHost(session: AgentSession, reach: ExtensionReach): BridgeHost {
	return {
		get cwd() {
			return session.cwd;
		},
		get model() {
			return session.model;
		},
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
		reportError: (error) => {
			process.stderr.write(`Extension error (${error.event}) in ${error.extensionPath}: ${error.error}\n`);
			void reach.events.emit({ type: "extension_error", ...error });
		},
		onLoaded: () => {
			// Their tools join the next turn's tool list and system prompt.
			reach.capabilities.invalidate();
			void session.extensions.started("startup");
		},
	};
}
