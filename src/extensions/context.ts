import type { ExtensionHost } from "./host.js";
import type { ExtensionContext } from "./types.js";
import type { ExtensionUiContext } from "./ui-types.js";

export interface ContextParts {
	host: ExtensionHost;
	ui: ExtensionUiContext;
	hasUI: boolean;
	signal: AbortSignal | undefined;
}

/** A `ctx` whose values are read from the host when used (the cwd and model follow the session). */
export function createExtensionContext({ host, ui, hasUI, signal }: ContextParts): ExtensionContext {
	return {
		ui,
		hasUI,
		signal,
		get mode() {
			return host.mode;
		},
		get cwd() {
			return host.cwd;
		},
		get model() {
			return host.model;
		},
		isIdle: () => host.isIdle(),
		abort: () => host.abort(),
		hasPendingMessages: () => host.hasPendingMessages(),
		getContextUsage: () => host.getContextUsage(),
		shutdown: () => host.shutdown(),
	};
}
