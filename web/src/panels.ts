/** The parts of the page drawn from the view besides the conversation: the queue and what extensions show. */
import { ui } from "./page.js";
import type { SessionView } from "./session-view.js";

let drawnQueue: string | undefined;
let drawnExtensionUi: string | undefined;

/** The queue above the message box: its messages (or how many when they are not known), and "Clear queue". */
export function drawQueue(view: SessionView, readOnly: boolean, clearQueue: () => void): void {
	const { steering, followUp } = view.queue;
	const pending = typeof view.state.pendingMessageCount === "number" ? view.state.pendingMessageCount : 0;
	const lines = view.queueKnown
		? [...steering.map((text) => ["steer", text]), ...followUp.map((text) => ["follow-up", text])]
		: [];
	const count = view.queueKnown ? lines.length : pending;
	// Drawn again only when it changed: a button replaced under the pointer would lose its click.
	const key = JSON.stringify([lines, count, readOnly]);
	if (key === drawnQueue) return;
	drawnQueue = key;
	ui.queue.hidden = count === 0;
	if (count === 0) {
		ui.queue.replaceChildren();
		return;
	}
	const title = document.createElement("span");
	title.className = "queue-title";
	title.textContent = `Queued (${count})`;
	const list = document.createElement("ul");
	for (const [kind, text] of lines) {
		const item = document.createElement("li");
		const label = document.createElement("span");
		label.className = "queue-kind";
		label.textContent = `${kind}: `;
		item.append(label, text ?? "");
		list.append(item);
	}
	const parts: HTMLElement[] = [title, list];
	if (!readOnly) {
		const clear = document.createElement("button");
		clear.type = "button";
		clear.className = "quiet";
		clear.textContent = "Clear queue";
		clear.addEventListener("click", clearQueue);
		parts.push(clear);
	}
	ui.queue.replaceChildren(...parts);
}

/** Extensions' status entries (in the header) and widgets (around the message box). */
export function drawExtensionUi(view: SessionView): void {
	const key = JSON.stringify([[...view.statuses], [...view.widgets]]);
	if (key === drawnExtensionUi) return;
	drawnExtensionUi = key;
	ui.statuses.hidden = view.statuses.size === 0;
	ui.statuses.replaceChildren(
		...[...view.statuses.values()].map((text) => {
			const item = document.createElement("li");
			item.textContent = text;
			return item;
		}),
	);
	for (const [host, above] of [
		[ui.widgetsAbove, true],
		[ui.widgetsBelow, false],
	] as const) {
		const widgets = [...view.widgets.values()].filter((widget) => widget.above === above);
		host.hidden = widgets.length === 0;
		host.replaceChildren(
			...widgets.map((widget) => {
				const block = document.createElement("pre");
				block.className = "widget";
				block.textContent = widget.lines.join("\n");
				return block;
			}),
		);
	}
}
