import { plainTheme } from "./compat/plain-theme.js";
import type { ExtensionUiBackend, ExtensionUiContext, UiPromptKind, UiPromptListener } from "./ui-types.js";

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

/**
 * Builds `ctx.ui` on top of a UI backend; the tools-expanded state is local to this object.
 * `onPrompt` hears when dialogs start and stop waiting for the user (overlapping ones count as one).
 */
export function createUiContext(backend: ExtensionUiBackend, onPrompt?: UiPromptListener): ExtensionUiContext {
	let toolsExpanded = false;
	let open = 0;
	let span: { kind: UiPromptKind; title: string } = { kind: "select", title: "" };
	const waiting = <T>(kind: UiPromptKind, title: string, dialog: () => Promise<T>): Promise<T> => {
		if (open++ === 0) {
			span = { kind, title };
			onPrompt?.("start", kind, title);
		}
		return dialog().finally(() => {
			if (--open === 0) onPrompt?.("end", span.kind, span.title);
		});
	};
	return {
		select: (title, options, opts) => waiting("select", title, () => backend.select(title, options, opts)),
		confirm: (title, message, opts) => waiting("confirm", title, () => backend.confirm(title, message, opts)),
		input: (title, placeholder, opts) => waiting("input", title, () => backend.input(title, placeholder, opts)),
		editor: (title, prefill) => waiting("editor", title, () => backend.editor(title, prefill)),
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
		onTerminalInput: () => ignore,
		setWorkingVisible: ignore,
		setHiddenThinkingLabel: ignore,
		getEditorComponent: () => undefined,
		theme: plainTheme,
	};
}
