import type { AgentMessage } from "../../src/agent/messages.js";
import { escapeHtml } from "../../src/export/html-text.js";
import { renderJson, renderOutput } from "../../src/export/render-blocks.js";
import { renderMessage } from "../../src/export/render-message.js";
import type { Item, LiveTool, SessionView } from "./session-view.js";

function messageHtml(message: AgentMessage, streaming = false): string {
	const entry = renderMessage(message);
	const classes = ["entry", ...entry.classes, ...(streaming ? ["streaming"] : [])].join(" ");
	const meta = entry.meta ? `<span class="meta">${entry.meta}</span>` : "";
	return `<article class="${classes}"><header class="entry-head"><span class="kind">${entry.title}</span>${meta}</header><div class="entry-body">${entry.body}</div></article>`;
}

function itemHtml(item: Item): string {
	if (item.kind === "note") return `<p class="marker ${item.tone}">${escapeHtml(item.text)}</p>`;
	return messageHtml(item.message);
}

function toolHtml(tool: LiveTool): string {
	const output = tool.output ? renderOutput(tool.output) : `<p class="note">Running…</p>`;
	return `<article class="entry kind-tool-live"><header class="entry-head"><span class="kind">Running: <span class="tool-name">${escapeHtml(tool.name)}</span></span></header><div class="entry-body">${renderJson(tool.args)}${output}</div></article>`;
}

/**
 * Draws the conversation: finished items once each (their HTML is kept), the streamed reply and
 * the running tools on every change, at most once per frame. Stays at the bottom while the
 * reader is there.
 */
export class ConversationView {
	private readonly drawn = new WeakMap<Item, string>();
	private scheduled = false;
	private lastVersion = -1;

	constructor(
		private readonly host: HTMLElement,
		private readonly view: SessionView,
	) {}

	schedule(): void {
		if (this.scheduled) return;
		this.scheduled = true;
		requestAnimationFrame(() => {
			this.scheduled = false;
			this.draw();
		});
	}

	private draw(): void {
		if (this.view.version === this.lastVersion) return;
		this.lastVersion = this.view.version;
		const atBottom = this.host.scrollHeight - this.host.scrollTop - this.host.clientHeight < 80;
		const parts: string[] = [];
		for (const item of this.view.items) {
			let html = this.drawn.get(item);
			if (html === undefined) {
				html = itemHtml(item);
				this.drawn.set(item, html);
			}
			parts.push(html);
		}
		if (this.view.streaming) parts.push(messageHtml(this.view.streaming, true));
		for (const tool of this.view.tools.values()) parts.push(toolHtml(tool));
		if (parts.length === 0) parts.push(`<p class="empty">Nothing here yet: send a message.</p>`);
		this.host.innerHTML = parts.join("");
		if (atBottom) this.host.scrollTop = this.host.scrollHeight;
	}
}
