/** Options of the dialog methods. */
export interface ExtensionUiDialogOptions {
	/** Dismisses the dialog (it resolves with its default). Already aborted: nothing is shown. */
	signal?: AbortSignal;
	/** Milliseconds until the dialog resolves with its default by itself; absent or 0: no limit. */
	timeout?: number;
}

export type WidgetPlacement = "aboveEditor" | "belowEditor";

export interface ExtensionWidgetOptions {
	/** Default "aboveEditor" (omitted on the wire when not given). */
	placement?: WidgetPlacement;
}

export type NotifyType = "info" | "warning" | "error";

/**
 * What a UI host (the RPC bridge) provides. `ctx.ui` is built on top of it in this layer, so the
 * degraded TUI-only methods never reach a backend.
 *
 * Contract: no method throws. Dialogs resolve with their default (undefined, or false for
 * confirm) when dismissed, timed out, aborted or answered with anything unusable; they never
 * reject. Fire-and-forget methods return at once. Optional arguments that are undefined mean
 * "not given" (omitted on the wire): for setStatus and setWidget that clears the entry.
 */
export interface ExtensionUiBackend {
	select(title: string, options: string[], opts?: ExtensionUiDialogOptions): Promise<string | undefined>;
	confirm(title: string, message: string, opts?: ExtensionUiDialogOptions): Promise<boolean>;
	input(title: string, placeholder?: string, opts?: ExtensionUiDialogOptions): Promise<string | undefined>;
	/** No timeout or signal: it waits until answered (or cancelled by the host). */
	editor(title: string, prefill?: string): Promise<string | undefined>;
	notify(message: string, type?: NotifyType): void;
	setStatus(key: string, text?: string): void;
	setWidget(key: string, lines?: string[], placement?: WidgetPlacement): void;
	setTitle(title: string): void;
	setEditorText(text: string): void;
}

/** What `ctx.ui.getChatRenderSettings()` reports of the local render state. */
export interface ChatRenderSettings {
	toolOutputExpanded: boolean;
}

/** A widget given as a component factory (TUI only): ignored by this host. */
export type WidgetFactory = (...args: never[]) => unknown;

/**
 * `ctx.ui` (pi's ExtensionUIContext names). Dialogs and fire-and-forget methods go to the host's
 * UI; the TUI-only methods are degraded as the RPC contract describes.
 */
export interface ExtensionUiContext {
	select(title: string, options: string[], opts?: ExtensionUiDialogOptions): Promise<string | undefined>;
	confirm(title: string, message: string, opts?: ExtensionUiDialogOptions): Promise<boolean>;
	input(title: string, placeholder?: string, opts?: ExtensionUiDialogOptions): Promise<string | undefined>;
	editor(title: string, prefill?: string): Promise<string | undefined>;
	notify(message: string, type?: NotifyType): void;
	/** Undefined text clears the entry. */
	setStatus(key: string, text?: string): void;
	/** Undefined lines clear the widget. A component factory is ignored: this host has no terminal. */
	setWidget(key: string, content?: string[] | WidgetFactory, options?: ExtensionWidgetOptions): void;
	setTitle(title: string): void;
	setEditorText(text: string): void;
	/** Same as setEditorText (no paste or collapse handling). */
	pasteToEditor(text: string): void;
	/** Always "": the editor lives in the client. */
	getEditorText(): string;
	/** Resolves undefined: custom components need a terminal. */
	custom<T>(...args: unknown[]): Promise<T | undefined>;
	setWorkingMessage(message?: string): void;
	setWorkingIndicator(...args: unknown[]): void;
	setFooter(...args: unknown[]): void;
	setHeader(...args: unknown[]): void;
	setEditorComponent(...args: unknown[]): void;
	addAutocompleteProvider(...args: unknown[]): void;
	/** Local state only (not sent to the client). */
	setToolsExpanded(expanded: boolean): void;
	getToolsExpanded(): boolean;
	getChatRenderSettings(): ChatRenderSettings;
	getAllThemes(): { name: string; path: string | undefined }[];
	getTheme(name: string): undefined;
	setTheme(theme: unknown): { success: boolean; error?: string };
}
