import { escapeHtml } from "../../src/export/html-text.js";
import { renderJson } from "../../src/export/render-blocks.js";
import { type Rec, str } from "./records.js";

/** How a dialog is answered: a command, or a dialog answer record. */
export interface DialogAnswers {
	/** Resolves with whether the server took the answer. */
	approve(id: string, decision: "allow" | "allow_always" | "deny"): Promise<boolean>;
	answer(record: Rec): void;
}

/** A dialog of the page itself (rename, fork): the shape of an extension's, answered here. */
export interface LocalDialog {
	method: "select" | "input";
	title: string;
	options?: string[];
	prefill?: string;
	/** The choice or the text; undefined when cancelled. */
	done(value: string | undefined): void;
}

function button(label: string, action: string, extra = ""): string {
	return `<button type="button" data-action="${action}"${extra}>${escapeHtml(label)}</button>`;
}

function clock(iso: unknown): string | undefined {
	if (typeof iso !== "string") return undefined;
	const time = new Date(iso);
	return Number.isNaN(time.getTime()) ? undefined : time.toLocaleTimeString();
}

function approvalHtml(request: Rec, readOnly: boolean, waiting: number): string {
	const kind = request.kind === "sandbox_escalation" ? "Run outside the sandbox?" : `Allow ${str(request.toolName)}?`;
	const more = waiting > 1 ? ` <span class="count">(1 of ${waiting})</span>` : "";
	// The decisions the request offers (all of them when it does not say).
	const offered: unknown[] = Array.isArray(request.options) ? request.options : ["allow", "allow_always", "deny"];
	const rule = str(request.alwaysRule);
	const expires = clock(request.expiresAt);
	const notes = [
		rule && offered.includes("allow_always") ? `“Always allow” adds the rule <code>${escapeHtml(rule)}</code>.` : "",
		expires ? `Denied by itself at ${escapeHtml(expires)} if nobody answers.` : "",
	].filter(Boolean);
	const buttons = [
		offered.includes("deny") ? button("Deny", "deny") : "",
		offered.includes("allow_always") ? button("Always allow", "allow_always") : "",
		offered.includes("allow") ? button("Allow", "allow", ' class="primary"') : "",
	];
	const actions = readOnly
		? `<p class="note">Waiting for a controller to answer.</p>`
		: `<div class="dialog-actions">${buttons.join("")}</div>`;
	return [
		`<h2 id="dialog-title">${escapeHtml(kind)}${more}</h2>`,
		`<p class="note">${escapeHtml(str(request.reason))}</p>`,
		renderJson(request.args),
		notes.length > 0 ? `<p class="note">${notes.join(" ")}</p>` : "",
		actions,
	].join("");
}

function choices(request: Rec | LocalDialog): string[] {
	const options: unknown = request.options;
	return Array.isArray(options) ? options.filter((option) => typeof option === "string") : [];
}

function formHtml(request: Rec | LocalDialog, readOnly: boolean): string {
	const method = str(request.method);
	const title = `<h2 id="dialog-title">${escapeHtml(str(request.title))}</h2>`;
	if (readOnly) return `${title}<p class="note">Waiting for a controller to answer.</p>`;
	if (method === "confirm") {
		const message = "message" in request ? str(request.message) : "";
		return `${title}<p>${escapeHtml(message)}</p><div class="dialog-actions">${button("No", "no")}${button("Yes", "yes", ' class="primary"')}</div>`;
	}
	if (method === "select") {
		const list = choices(request).map(
			(option, index) => `<li>${button(option, "choose", ` data-index="${index}"`)}</li>`,
		);
		return `${title}<ul class="choices">${list.join("")}</ul><div class="dialog-actions">${button("Cancel", "cancel")}</div>`;
	}
	const label = escapeHtml(str(request.title, "Answer"));
	const prefill = escapeHtml(str(request.prefill));
	const field =
		method === "editor"
			? `<textarea class="dialog-field" aria-label="${label}" rows="8">${prefill}</textarea>`
			: `<input class="dialog-field" aria-label="${label}" value="${prefill}" placeholder="${escapeHtml("placeholder" in request ? str(request.placeholder) : "")}">`;
	return `${title}${field}<div class="dialog-actions">${button("Cancel", "cancel")}${button("OK", "ok", ' class="primary"')}</div>`;
}

type Shown =
	| { kind: "approval"; request: Rec; waiting: number }
	| { kind: "extension"; request: Rec }
	| { kind: "local"; request: LocalDialog };

/**
 * Shows one dialog at a time (`role="dialog"`): the first open approval, else the first open
 * extension dialog, else the page's own (rename, fork). An approval or dialog answered here or in
 * another tab goes when its resolved event comes. It draws again only when the dialog shown
 * changes, so that what a person types in it is kept. An observer sees them without buttons,
 * beside the page rather than over it.
 */
export class Dialogs {
	private shownKey: string | undefined;
	private local: { id: number; dialog: LocalDialog } | undefined;
	private localCount = 0;
	/** Where the focus was before a dialog took it: it goes back there. */
	private returnFocus: Element | null = null;

	constructor(
		private readonly host: HTMLElement,
		private readonly answers: DialogAnswers,
	) {}

	/** Opens one of the page's own dialogs (it replaces one still open). */
	open(dialog: LocalDialog): void {
		this.local?.dialog.done(undefined);
		this.local = { id: ++this.localCount, dialog };
	}

	/** Draws the dialog again at the next `show` (its buttons usable again: after a reconnect). */
	redraw(): void {
		this.shownKey = undefined;
	}

	/** Whether a dialog that takes the page is open (Escape then belongs to it). */
	get modal(): boolean {
		return this.host.querySelector(".backdrop") !== null;
	}

	show(approvals: Map<string, Rec>, dialogs: Map<string, Rec>, readOnly: boolean): void {
		const [approval] = approvals.values();
		const [dialog] = dialogs.values();
		const shown: Shown | undefined = approval
			? { kind: "approval", request: approval, waiting: approvals.size }
			: dialog
				? { kind: "extension", request: dialog }
				: this.local
					? { kind: "local", request: this.local.dialog }
					: undefined;
		const id = shown?.kind === "local" ? String(this.local?.id) : str(shown?.request.id);
		const key = shown ? `${shown.kind}:${id}:${readOnly}:${shown.kind === "approval" ? shown.waiting : ""}` : undefined;
		if (key === this.shownKey) return;
		const hadFocus = this.host.contains(document.activeElement);
		this.shownKey = key;
		if (!shown) {
			this.host.replaceChildren();
			if (hadFocus && this.returnFocus instanceof HTMLElement) this.returnFocus.focus();
			this.returnFocus = null;
			return;
		}
		if (!hadFocus) this.returnFocus = document.activeElement;
		const passive = readOnly && shown.kind !== "local";
		const body =
			shown.kind === "approval"
				? approvalHtml(shown.request, readOnly, shown.waiting)
				: formHtml(shown.request, readOnly);
		const box = `<div class="dialog${passive ? " passive" : ""}" role="dialog" aria-modal="${passive ? "false" : "true"}" aria-labelledby="dialog-title" tabindex="-1">${body}</div>`;
		this.host.innerHTML = passive ? box : `<div class="backdrop">${box}</div>`;
		this.wire(shown, id);
	}

	private wire(shown: Shown, id: string): void {
		for (const element of this.host.querySelectorAll<HTMLButtonElement>("button[data-action]")) {
			element.addEventListener("click", () => this.act(shown, id, element));
		}
		const field = this.host.querySelector<HTMLInputElement | HTMLTextAreaElement>(".dialog-field");
		const box = this.host.querySelector<HTMLElement>(".dialog");
		box?.addEventListener("keydown", (event) => {
			if (event.key === "Escape") {
				// Escape closes the dialog it is pressed in; it never stops the run behind it.
				event.stopPropagation();
				if (shown.kind !== "approval") this.finish(shown, id, { cancelled: true });
			} else if (event.key === "Enter" && event.target instanceof HTMLInputElement) {
				event.preventDefault();
				this.finish(shown, id, { value: event.target.value });
			}
		});
		// An approval takes the focus on itself, not on a button, so that a key pressed for something
		// else answers nothing; a field takes it so that typing goes there.
		if (field) {
			field.focus();
			field.setSelectionRange(field.value.length, field.value.length);
		} else box?.focus();
	}

	private act(shown: Shown, id: string, element: HTMLButtonElement): void {
		const action = element.dataset.action ?? "";
		if (shown.kind === "approval") {
			if (action !== "allow" && action !== "allow_always" && action !== "deny") return;
			// Answered once: the dialog goes when the server says it was decided (here or elsewhere).
			const buttons = [...this.host.querySelectorAll<HTMLButtonElement>("button[data-action]")];
			for (const each of buttons) each.disabled = true;
			void this.answers.approve(id, action).then((taken) => {
				if (!taken) for (const each of buttons) each.disabled = false;
			});
			return;
		}
		const field = this.host.querySelector<HTMLInputElement | HTMLTextAreaElement>(".dialog-field");
		if (action === "yes" || action === "no") this.finish(shown, id, { confirmed: action === "yes" });
		else if (action === "choose") {
			const chosen = choices(shown.request)[Number(element.dataset.index)];
			this.finish(shown, id, chosen === undefined ? { cancelled: true } : { value: chosen });
		} else if (action === "ok") this.finish(shown, id, { value: field?.value ?? "" });
		else this.finish(shown, id, { cancelled: true });
	}

	private finish(shown: Shown, id: string, answer: { value?: string; confirmed?: boolean; cancelled?: boolean }): void {
		if (shown.kind === "local") {
			this.local = undefined;
			this.shownKey = undefined;
			this.host.replaceChildren();
			if (this.returnFocus instanceof HTMLElement) this.returnFocus.focus();
			shown.request.done(answer.value);
			return;
		}
		if (shown.kind !== "extension") return;
		for (const each of this.host.querySelectorAll<HTMLButtonElement>("button")) each.disabled = true;
		this.answers.answer({ type: "extension_ui_response", id, ...answer });
	}
}
