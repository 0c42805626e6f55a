/** The page's elements (web/index.html), found once and typed. */

function element<T extends HTMLElement>(id: string, kind: new () => T): T {
	const found = document.getElementById(id);
	if (!(found instanceof kind)) throw new Error(`the page has no #${id}`);
	return found;
}

export const ui = {
	sessions: element("sessions", HTMLUListElement),
	newSession: element("new-session", HTMLButtonElement),
	who: element("who", HTMLSpanElement),
	title: element("session-title", HTMLHeadingElement),
	rename: element("rename", HTMLButtonElement),
	fork: element("fork", HTMLButtonElement),
	status: element("status", HTMLSpanElement),
	model: element("model", HTMLSelectElement),
	thinking: element("thinking", HTMLSelectElement),
	approvalMode: element("approval-mode", HTMLSelectElement),
	approvalLabel: element("approval-label", HTMLLabelElement),
	sandboxMode: element("sandbox-mode", HTMLSelectElement),
	sandboxLabel: element("sandbox-label", HTMLLabelElement),
	usage: element("usage", HTMLSpanElement),
	statuses: element("statuses", HTMLUListElement),
	conversation: element("conversation", HTMLDivElement),
	widgetsAbove: element("widgets-above", HTMLDivElement),
	widgetsBelow: element("widgets-below", HTMLDivElement),
	queue: element("queue", HTMLDivElement),
	composer: element("composer", HTMLFormElement),
	message: element("message", HTMLTextAreaElement),
	whileStreaming: element("while-streaming", HTMLFieldSetElement),
	send: element("send", HTMLButtonElement),
	stop: element("stop", HTMLButtonElement),
	readOnlyNote: element("read-only", HTMLParagraphElement),
	dialogs: element("dialogs", HTMLDivElement),
	toasts: element("toasts", HTMLDivElement),
};

/** Shows a short message in the corner for a few seconds. */
export function toast(text: string): void {
	if (text.trim() === "") return;
	const item = document.createElement("div");
	item.className = "toast";
	item.textContent = text;
	ui.toasts.append(item);
	setTimeout(() => item.remove(), 6000);
}

/** Sets a select's options (value and label), keeping `selected` chosen even when it is not among them. */
export function fillSelect(
	select: HTMLSelectElement,
	options: { value: string; label: string }[],
	selected: string,
): void {
	const all =
		options.some((option) => option.value === selected) || selected === ""
			? options
			: [...options, { value: selected, label: selected }];
	select.replaceChildren(
		...all.map((option) => {
			const item = document.createElement("option");
			item.value = option.value;
			item.textContent = option.label;
			return item;
		}),
	);
	select.value = selected;
}

/** Chooses `value` in a select, adding it when the select does not have it. */
export function choose(select: HTMLSelectElement, value: string): void {
	if (value === "" || select.value === value) return;
	if (![...select.options].some((option) => option.value === value)) {
		const item = document.createElement("option");
		item.value = value;
		item.textContent = value;
		select.append(item);
	}
	select.value = value;
}
