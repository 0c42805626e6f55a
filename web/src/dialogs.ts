import { escapeHtml } from "../../src/export/html-text.js";
import { renderJson } from "../../src/export/render-blocks.js";
import { type Rec, str } from "./records.js";

/** How a dialog is answered: a command, or a dialog answer record. */
export interface DialogAnswers {
	approve(id: string, decision: "allow" | "allow_always" | "deny"): void;
	answer(record: Rec): void;
}

function button(label: string, action: string, extra = ""): string {
	return `<button type="button" data-action="${action}"${extra}>${escapeHtml(label)}</button>`;
}

function approvalHtml(request: Rec, readOnly: boolean): string {
	const kind = request.kind === "sandbox_escalation" ? "Run outside the sandbox?" : `Allow ${str(request.toolName)}?`;
	const actions = readOnly
		? `<p class="note">Waiting for a controller to answer.</p>`
		: `<div class="dialog-actions">${button("Allow", "allow")}${button("Always allow", "allow_always", ` title="${escapeHtml(str(request.alwaysRule))}"`)}${button("Deny", "deny")}</div>`;
	return [
		`<h2 id="dialog-title">${escapeHtml(kind)}</h2>`,
		`<p class="note">${escapeHtml(str(request.reason))}</p>`,
		renderJson(request.args),
		actions,
	].join("");
}

function extensionHtml(request: Rec, readOnly: boolean): string {
	const method = str(request.method);
	const title = `<h2 id="dialog-title">${escapeHtml(str(request.title))}</h2>`;
	if (readOnly) return `${title}<p class="note">Waiting for a controller to answer.</p>`;
	if (method === "confirm") {
		return `${title}<p>${escapeHtml(str(request.message))}</p><div class="dialog-actions">${button("Yes", "yes")}${button("No", "no")}</div>`;
	}
	if (method === "select") {
		const options = Array.isArray(request.options)
			? request.options.filter((option) => typeof option === "string")
			: [];
		const list = options.map((option) => `<li>${button(option, "choose", ` data-value="${escapeHtml(option)}"`)}</li>`);
		return `${title}<ul class="choices">${list.join("")}</ul><div class="dialog-actions">${button("Cancel", "cancel")}</div>`;
	}
	const field =
		method === "editor"
			? `<textarea class="dialog-field" aria-label="${escapeHtml(str(request.title, "Text"))}" rows="8">${escapeHtml(str(request.prefill))}</textarea>`
			: `<input class="dialog-field" aria-label="${escapeHtml(str(request.title, "Answer"))}" placeholder="${escapeHtml(str(request.placeholder))}">`;
	return `${title}${field}<div class="dialog-actions">${button("OK", "ok")}${button("Cancel", "cancel")}</div>`;
}

/**
 * Shows the first open approval, else the first open extension dialog, as a modal dialog
 * (`role="dialog"`); answered here or in another tab, it goes when its resolved event comes.
 * Re-renders only when the dialog shown changes, so that typing in it is not lost.
 */
export class Dialogs {
	private shownId: string | undefined;

	constructor(
		private readonly host: HTMLElement,
		private readonly answers: DialogAnswers,
	) {}

	show(approvals: Map<string, Rec>, dialogs: Map<string, Rec>, readOnly: boolean): void {
		const [approval] = approvals.values();
		const [dialog] = dialogs.values();
		const request = approval ?? dialog;
		const id = request ? `${approval ? "a" : "d"}:${str(request.id)}:${readOnly}` : undefined;
		if (id === this.shownId) return;
		this.shownId = id;
		if (!request) {
			this.host.innerHTML = "";
			return;
		}
		const body = approval ? approvalHtml(request, readOnly) : extensionHtml(request, readOnly);
		this.host.innerHTML = `<div class="backdrop"><div class="dialog" role="dialog" aria-modal="true" aria-labelledby="dialog-title">${body}</div></div>`;
		const requestId = str(request.id);
		for (const element of this.host.querySelectorAll<HTMLButtonElement>("button[data-action]")) {
			element.addEventListener("click", () => this.act(requestId, element, approval !== undefined));
		}
		const field = this.host.querySelector<HTMLInputElement | HTMLTextAreaElement>(".dialog-field");
		// Enter answers a one-line field; an editor's Enter is a new line.
		if (field instanceof HTMLInputElement) {
			field.addEventListener("keydown", (event) => {
				if (event.key !== "Enter") return;
				event.preventDefault();
				this.answers.answer({ type: "extension_ui_response", id: requestId, value: field.value });
			});
		}
		(field ?? this.host.querySelector<HTMLButtonElement>("button[data-action]"))?.focus();
	}

	private act(id: string, element: HTMLButtonElement, isApproval: boolean): void {
		const action = element.dataset.action ?? "";
		if (isApproval) {
			if (action === "allow" || action === "allow_always" || action === "deny") this.answers.approve(id, action);
			return;
		}
		const field = this.host.querySelector<HTMLInputElement | HTMLTextAreaElement>(".dialog-field");
		const answer: Rec = { type: "extension_ui_response", id };
		if (action === "yes" || action === "no") answer.confirmed = action === "yes";
		else if (action === "choose") answer.value = element.dataset.value ?? "";
		else if (action === "ok") answer.value = field?.value ?? "";
		else answer.cancelled = true;
		this.answers.answer(answer);
	}
}
