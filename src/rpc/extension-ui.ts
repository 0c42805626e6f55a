import type { ExtensionUiBackend, ExtensionUiDialogOptions, NotifyType, WidgetPlacement } from "../extensions/index.js";
import { timerDelay } from "../llm/timer-limit.js";
import { randomUuid } from "../platform/random.js";

/** One `extension_ui_request` record as written to stdout. */
export interface ExtensionUiRequest {
	type: "extension_ui_request";
	id: string;
	method: string;
	[field: string]: unknown;
}

/** A client's answer to a dialog (`extension_ui_response`); its fields are checked here, not trusted. */
export interface ExtensionUiAnswer {
	id: string;
	value?: unknown;
	confirmed?: unknown;
	cancelled?: unknown;
}

type DialogKind = "value" | "confirm";

interface OpenDialog {
	settle(answer: ExtensionUiAnswer | undefined): void;
}

/** What a dialog resolves with: the default when the answer is missing, cancelled or unusable. */
function dialogResult(kind: DialogKind, answer: ExtensionUiAnswer | undefined): string | boolean | undefined {
	if (kind === "confirm") return answer?.cancelled !== true && answer?.confirmed === true;
	if (!answer || answer.cancelled === true) return undefined;
	return typeof answer.value === "string" ? answer.value : undefined;
}

/**
 * The RPC side of the extension UI sub-protocol. Each call writes one request record with a fresh
 * UUID (fields whose value is undefined are omitted). Dialogs stay open until `handleResponse`
 * gets their id, their timeout passes, their signal aborts, or `cancelAll` runs; several may be
 * open at once. `write` must not throw.
 */
export class RpcExtensionUi implements ExtensionUiBackend {
	private readonly open = new Map<string, OpenDialog>();

	constructor(
		private readonly write: (record: ExtensionUiRequest) => void,
		private readonly createId: () => string = () => randomUuid(),
		/** Told when a dialog closes: answered, timed out, aborted or cancelled. */
		private readonly onClosed: (id: string) => void = () => undefined,
	) {}

	/** How many dialogs wait for an answer. */
	get openDialogs(): number {
		return this.open.size;
	}

	select(title: string, options: string[], opts?: ExtensionUiDialogOptions): Promise<string | undefined> {
		return this.dialog("value", "select", { title, options }, opts) as Promise<string | undefined>;
	}

	confirm(title: string, message: string, opts?: ExtensionUiDialogOptions): Promise<boolean> {
		return this.dialog("confirm", "confirm", { title, message }, opts) as Promise<boolean>;
	}

	input(title: string, placeholder?: string, opts?: ExtensionUiDialogOptions): Promise<string | undefined> {
		return this.dialog("value", "input", { title, placeholder }, opts) as Promise<string | undefined>;
	}

	editor(title: string, prefill?: string): Promise<string | undefined> {
		return this.dialog("value", "editor", { title, prefill }, undefined) as Promise<string | undefined>;
	}

	notify(message: string, type?: NotifyType): void {
		this.send("notify", { message, notifyType: type });
	}

	setStatus(key: string, text?: string): void {
		this.send("setStatus", { statusKey: key, statusText: text });
	}

	setWidget(key: string, lines?: string[], placement?: WidgetPlacement): void {
		this.send("setWidget", { widgetKey: key, widgetLines: lines, widgetPlacement: placement });
	}

	setTitle(title: string): void {
		this.send("setTitle", { title });
	}

	setEditorText(text: string): void {
		this.send("set_editor_text", { text });
	}

	/**
	 * Resolves the dialog with this id; returns false (and does nothing) for an unknown or already
	 * settled id. `value` answers select/input/editor, `confirmed` answers confirm, `cancelled: true`
	 * gives the default; anything else also gives the default.
	 */
	handleResponse(answer: ExtensionUiAnswer): boolean {
		const dialog = this.open.get(answer.id);
		if (!dialog) return false;
		dialog.settle(answer);
		return true;
	}

	/** Resolves every open dialog with its default (on abort and when the session is replaced). */
	cancelAll(): void {
		for (const dialog of [...this.open.values()]) dialog.settle(undefined);
	}

	private dialog(
		kind: DialogKind,
		method: string,
		fields: Record<string, unknown>,
		opts: ExtensionUiDialogOptions | undefined,
	): Promise<string | boolean | undefined> {
		if (opts?.signal?.aborted) return Promise.resolve(dialogResult(kind, undefined));
		const timeout = opts?.timeout !== undefined && opts.timeout > 0 ? opts.timeout : undefined;
		const id = this.createId();
		return new Promise((resolve) => {
			let timer: ReturnType<typeof setTimeout> | undefined;
			const onAbort = () => settle(undefined);
			const settle = (answer: ExtensionUiAnswer | undefined) => {
				if (!this.open.delete(id)) return;
				if (timer) clearTimeout(timer);
				opts?.signal?.removeEventListener("abort", onAbort);
				resolve(dialogResult(kind, answer));
				this.onClosed(id);
			};
			this.open.set(id, { settle });
			if (timeout !== undefined) timer = setTimeout(() => settle(undefined), timerDelay(timeout));
			opts?.signal?.addEventListener("abort", onAbort, { once: true });
			this.send(method, { ...fields, timeout }, id);
		});
	}

	private send(method: string, fields: Record<string, unknown>, id: string = this.createId()): void {
		const record: ExtensionUiRequest = { type: "extension_ui_request", id, method };
		for (const [name, value] of Object.entries(fields)) if (value !== undefined) record[name] = value;
		this.write(record);
	}
}
