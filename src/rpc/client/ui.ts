import type { UiAnswer, UiDialogRequest, UiRequest } from "./types.js";

/**
 * Answers extension UI requests. For a dialog, return `{value}` (select/input/editor),
 * `{confirmed}` (confirm) or `{cancelled: true}`; returning nothing cancels. For fire-and-forget
 * requests (notify, setStatus, setWidget, setTitle, set_editor_text) the return value is ignored.
 */
export type UiRequestHandler = (
	request: UiRequest,
) => UiAnswer | undefined | Promise<UiAnswer | undefined> | Promise<void> | void;

const DIALOG_METHODS: ReadonlySet<string> = new Set(["select", "confirm", "input", "editor"]);

export function isDialog(request: UiRequest): request is UiDialogRequest {
	return DIALOG_METHODS.has(request.method);
}

/** The `extension_ui_response` record for an answer; anything unusable cancels. */
export function uiResponse(id: string, answer: UiAnswer | undefined): Record<string, unknown> {
	if (answer && "value" in answer && typeof answer.value === "string") {
		return { type: "extension_ui_response", id, value: answer.value };
	}
	if (answer && "confirmed" in answer && typeof answer.confirmed === "boolean") {
		return { type: "extension_ui_response", id, confirmed: answer.confirmed };
	}
	return { type: "extension_ui_response", id, cancelled: true };
}

/**
 * Routes extension UI requests to the one registered handler and writes dialog answers. Without
 * a handler, or when the handler throws, a dialog is answered cancelled so the agent never waits
 * for its timeout. A client of `atomic serve` without a handler leaves dialogs to the session's
 * other clients (the first answer wins).
 */
export class UiResponder {
	private handler: UiRequestHandler | undefined;

	constructor(
		/** Writes an answer record; must not throw (a dead process simply gets no answer). */
		private readonly write: (record: Record<string, unknown>) => void,
		private readonly onHandlerError: (error: unknown) => void,
		/** Whether a dialog is answered (cancelled) when no handler is set. */
		private readonly answersUnhandled: () => boolean = () => true,
	) {}

	/** Sets the handler (replacing the previous one); returns its removal. */
	setHandler(handler: UiRequestHandler): () => void {
		this.handler = handler;
		return () => {
			if (this.handler === handler) this.handler = undefined;
		};
	}

	handle(request: UiRequest): void {
		const handler = this.handler;
		if (!isDialog(request)) {
			if (handler) void this.run(handler, request);
			return;
		}
		if (!handler) {
			if (this.answersUnhandled()) this.write(uiResponse(request.id, undefined));
			return;
		}
		void this.run(handler, request).then((answer) => this.write(uiResponse(request.id, answer)));
	}

	/** Runs the handler; a throw or rejection is reported and counts as no answer. */
	private async run(handler: UiRequestHandler, request: UiRequest): Promise<UiAnswer | undefined> {
		try {
			return (await handler(request)) ?? undefined;
		} catch (error) {
			this.onHandlerError(error);
			return undefined;
		}
	}
}
