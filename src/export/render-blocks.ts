import type { ImageContent, TextContent } from "../llm/types.js";
import { escapeHtml, formatCount, prettyJson } from "./html-text.js";
import { highlightJson } from "./json-html.js";
import { renderMarkdown } from "./markdown.js";

/** Outputs longer than this many lines show their head and fold the rest away. */
const PREVIEW_LINES = 12;
/** Also fold single very long lines (minified files, base64 dumps). */
const PREVIEW_CHARACTERS = 2_000;

/**
 * Plain-text output (tool results, bash output, compacted transcripts) in a `<pre>`. Long text
 * shows its first lines and puts the rest in a `<details>`: readable without script, and each
 * character is in the page once.
 */
export function renderOutput(text: string, className = "output"): string {
	const lineCut = nthNewline(text, PREVIEW_LINES);
	const cut = lineCut === -1 && text.length > PREVIEW_CHARACTERS ? PREVIEW_CHARACTERS : lineCut;
	if (cut === -1 || cut >= text.length - 1) return `<pre class="${className}">${escapeHtml(text)}</pre>`;
	// A line cut drops the newline at the cut: the folded part starts on the next line.
	const rest = lineCut === -1 ? text.slice(cut) : text.slice(cut + 1);
	const more =
		lineCut === -1
			? `${formatCount(rest.length)} more characters`
			: `${formatCount(rest.replace(/\n$/, "").split("\n").length)} more lines`;
	return [
		`<div class="${className} folded">`,
		`<pre>${escapeHtml(text.slice(0, cut))}</pre>`,
		`<details class="more"><summary>${more}</summary><pre>${escapeHtml(rest)}</pre></details>`,
		"</div>",
	].join("");
}

/** Index of the n-th newline, or -1 when the text has fewer. */
function nthNewline(text: string, n: number): number {
	let index = -1;
	for (let count = 0; count < n; count++) {
		index = text.indexOf("\n", index + 1);
		if (index === -1) return -1;
	}
	return index;
}

const IMAGE_MIME = /^image\/[a-z0-9.+-]+$/i;
const BASE64 = /^[a-z0-9+/=\r\n]*$/i;

/** An embedded image; data that is not plain base64 of an image type is not put into a URL. */
export function renderImage(image: ImageContent): string {
	if (typeof image.data !== "string" || !IMAGE_MIME.test(image.mimeType) || !BASE64.test(image.data))
		return `<div class="image-missing">[image: ${escapeHtml(String(image.mimeType))}]</div>`;
	const source = `data:${image.mimeType};base64,${image.data.replace(/[\r\n]/g, "")}`;
	return `<img class="inline-image" src="${escapeHtml(source)}" alt="${escapeHtml(image.mimeType)}" loading="lazy">`;
}

/** Message content as text and images, text rendered as markdown or as plain output. */
export function renderContent(
	content: string | readonly (TextContent | ImageContent)[],
	as: "markdown" | "output",
): string {
	const renderText = (text: string) =>
		as === "markdown" ? `<div class="markdown">${renderMarkdown(text)}</div>` : renderOutput(text);
	if (typeof content === "string") return renderText(content);
	const parts: string[] = [];
	for (const block of content) {
		if (block.type === "text") parts.push(renderText(block.text));
		else if (block.type === "image") parts.push(renderImage(block));
	}
	return parts.join("");
}

/** Structured data (tool arguments, extension details) as highlighted JSON, secrets of models removed. */
export function renderJson(value: unknown): string {
	return `<pre><code class="hljs language-json">${highlightJson(prettyJson(value))}</code></pre>`;
}

/** A `<details>` section; `open` for content that should be visible at first. */
export function collapsible(summaryHtml: string, bodyHtml: string, className: string, open = false): string {
	return `<details class="${className}"${open ? " open" : ""}><summary>${summaryHtml}</summary>${bodyHtml}</details>`;
}

/** A link to another entry; the page script turns it into a branch switch when needed. */
export function entryLink(id: string, text: string = id): string {
	return `<a class="entry-link" href="#e-${escapeHtml(id)}" data-id="${escapeHtml(id)}">${escapeHtml(text)}</a>`;
}
