import type { AgentMessage } from "../../src/agent/messages.js";
import { escapeHtml } from "../../src/export/html-text.js";
import { renderMessage } from "../../src/export/render-message.js";
import type { Item, LiveTool, SessionView, StreamingReply } from "./session-view.js";

function messageHtml(message: AgentMessage, extraClasses: string[] = []): string {
	let entry: ReturnType<typeof renderMessage>;
	try {
		entry = renderMessage(message);
	} catch (error) {
		// One message the page cannot draw does not stop the others.
		const reason = error instanceof Error ? error.message : String(error);
		return `<article class="entry error"><div class="entry-body">This message cannot be shown: ${escapeHtml(reason)}</div></article>`;
	}
	const classes = ["entry", ...entry.classes, ...extraClasses].join(" ");
	const meta = entry.meta ? `<span class="meta">${entry.meta}</span>` : "";
	return `<article class="${classes}"><header class="entry-head"><span class="kind">${entry.title}</span>${meta}</header><div class="entry-body">${entry.body}</div></article>`;
}

function itemHtml(item: Item): string {
	if (item.kind === "note") return `<p class="marker ${item.tone}">${escapeHtml(item.text)}</p>`;
	return messageHtml(item.message);
}

function streamingHtml(reply: StreamingReply): string {
	const html = messageHtml(reply.message, ["streaming"]);
	if (!reply.joinedLate) return html;
	return `<p class="marker">This reply began before the page attached: all of it shows once it ends.</p>${html}`;
}

/** The most lines of a running tool's output shown: the newest ones, as a terminal shows them. */
const LIVE_LINES = 300;

function liveOutputHtml(output: string): string {
	if (output === "") return `<p class="note">Running…</p>`;
	const lines = output.replace(/\n$/, "").split("\n");
	const earlier = lines.length - LIVE_LINES;
	const note = earlier > 0 ? `<p class="note">${earlier.toLocaleString("en")} earlier lines not shown</p>` : "";
	return `${note}<pre class="output live-output">${escapeHtml(lines.slice(-LIVE_LINES).join("\n"))}</pre>`;
}

/** A running tool: its output so far (its call and arguments are in the reply above). */
function toolHtml(tool: LiveTool): string {
	return `<article class="entry kind-tool-live" aria-busy="true"><header class="entry-head"><span class="kind">Running: <span class="tool-name">${escapeHtml(tool.name)}</span></span><span class="meta tool-call-id">${escapeHtml(tool.id)}</span></header><div class="entry-body">${liveOutputHtml(tool.output)}</div></article>`;
}

function fromHtml(html: string): Element[] {
	const template = document.createElement("template");
	template.innerHTML = html;
	return [...template.content.children];
}

/**
 * Draws the conversation, at most once per frame: each finished item once (appended as it comes,
 * so what a reader opened or selected stays), and the streamed reply and the running tools below
 * them on every change. Stays at the bottom while the reader is there.
 */
export class ConversationView {
	private readonly finished = document.createElement("div");
	private readonly live = document.createElement("div");
	private readonly empty = document.createElement("p");
	private drawn: { item: Item; nodes: Element[] }[] = [];
	private scheduled = false;
	private itemsVersion = -1;
	private version = -1;
	private liveHtml = "";

	constructor(
		private readonly host: HTMLElement,
		private readonly view: SessionView,
	) {
		this.empty.className = "empty";
		this.empty.textContent = "Nothing here yet.";
		this.live.className = "live";
		host.replaceChildren(this.finished, this.live, this.empty);
	}

	schedule(): void {
		if (this.scheduled) return;
		this.scheduled = true;
		requestAnimationFrame(() => {
			this.scheduled = false;
			this.draw();
		});
	}

	/** Shows a message instead of the conversation (no login, no session); undefined: the usual one. */
	message(html?: string): void {
		this.drawn = [];
		this.itemsVersion = -1;
		this.version = -1;
		this.finished.replaceChildren();
		this.live.replaceChildren();
		this.liveHtml = "";
		if (html === undefined) this.empty.textContent = "Nothing here yet.";
		else this.empty.innerHTML = html;
		this.empty.hidden = false;
		this.schedule();
	}

	private draw(): void {
		if (this.view.version === this.version) return;
		this.version = this.view.version;
		const host = this.host;
		const atBottom = host.scrollHeight - host.scrollTop - host.clientHeight < 80;
		if (this.view.itemsVersion !== this.itemsVersion) {
			this.itemsVersion = this.view.itemsVersion;
			this.drawItems();
		}
		this.drawLive();
		this.empty.hidden = this.drawn.length > 0 || this.live.childElementCount > 0;
		if (atBottom) host.scrollTop = host.scrollHeight;
	}

	/** Keeps the nodes of the items drawn before that are still there, in order; draws the rest. */
	private drawItems(): void {
		const items = this.view.items;
		let same = 0;
		while (same < this.drawn.length && same < items.length && this.drawn[same]?.item === items[same]) same++;
		for (const gone of this.drawn.splice(same)) for (const node of gone.nodes) node.remove();
		for (const item of items.slice(same)) {
			const nodes = fromHtml(itemHtml(item));
			this.finished.append(...nodes);
			this.drawn.push({ item, nodes });
		}
	}

	/** The streamed reply and the running tools; a thinking block the reader opened stays open. */
	private drawLive(): void {
		const parts: string[] = [];
		if (this.view.streaming) parts.push(streamingHtml(this.view.streaming));
		for (const tool of this.view.tools.values()) parts.push(toolHtml(tool));
		const html = parts.join("");
		// Unchanged (an event about something else): the nodes stay, with what the reader does in them.
		if (html === this.liveHtml) return;
		this.liveHtml = html;
		const open = [...this.live.querySelectorAll("details")].map((details) => details.open);
		this.live.innerHTML = html;
		this.live.querySelectorAll("details").forEach((details, index) => {
			if (open[index] !== undefined) details.open = open[index];
		});
		// A running command's newest output is in view, as in a terminal.
		for (const output of this.live.querySelectorAll(".live-output")) output.scrollTop = output.scrollHeight;
	}
}
