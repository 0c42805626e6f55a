import type { AgentSession } from "./agent-session.js";
import type { AgentSessionEvent } from "./events.js";
import type { BridgeHost } from "./extension-bridge.js";
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
		reportError: (error) => {
			process.stderr.write(`Extension error (${error.event}) in ${error.extensionPath}: ${error.error}\n`);
			internals.emit({ type: "extension_error", ...error });
		},
		onLoaded: () => {
			internals.refreshTools();
			void session.extensions.started("startup");
		},
	};
}
