import type { ExtensionUiBackend, ExtensionUiContext } from "./ui-types.js";

export const THEME_SWITCH_ERROR = "Theme switching not supported in RPC mode";

/** Without a UI (print and json modes) dialogs answer their default at once and the rest is dropped. */
export const headlessUiBackend: ExtensionUiBackend = {
	select: async () => undefined,
	confirm: async () => false,
	input: async () => undefined,
	editor: async () => undefined,
	notify: () => undefined,
	setStatus: () => undefined,
	setWidget: () => undefined,
	setTitle: () => undefined,
	setEditorText: () => undefined,
};

function ignore(): void {
	// A TUI-only feature: there is no terminal to draw it on.
}

/** Builds `ctx.ui` on top of a UI backend; the tools-expanded state is local to this object. */
export function createUiContext(backend: ExtensionUiBackend): ExtensionUiContext {
	let toolsExpanded = false;
	return {
		select: (title, options, opts) => backend.select(title, options, opts),
		confirm: (title, message, opts) => backend.confirm(title, message, opts),
		input: (title, placeholder, opts) => backend.input(title, placeholder, opts),
		editor: (title, prefill) => backend.editor(title, prefill),
		notify: (message, type) => backend.notify(message, type),
		setStatus: (key, text) => backend.setStatus(key, text),
		setWidget(key, content, options) {
			// A component factory draws on a terminal; there is none, so it is ignored (nothing is sent).
			if (typeof content === "function") return;
			if (content !== undefined && !(Array.isArray(content) && content.every((line) => typeof line === "string")))
				throw new TypeError("setWidget expects an array of strings (or undefined to clear)");
			backend.setWidget(key, content, options?.placement);
		},
		setTitle: (title) => backend.setTitle(title),
		setEditorText: (text) => backend.setEditorText(text),
		pasteToEditor: (text) => backend.setEditorText(text),
		getEditorText: () => "",
		custom: async () => undefined,
		setWorkingMessage: ignore,
		setWorkingIndicator: ignore,
		setFooter: ignore,
		setHeader: ignore,
		setEditorComponent: ignore,
		addAutocompleteProvider: ignore,
		setToolsExpanded(expanded) {
			toolsExpanded = expanded;
		},
		getToolsExpanded: () => toolsExpanded,
		getChatRenderSettings: () => ({ toolOutputExpanded: toolsExpanded }),
		getAllThemes: () => [],
		getTheme: () => undefined,
		setTheme: () => ({ success: false, error: THEME_SWITCH_ERROR }),
	};
}
