import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import plaintext from "highlight.js/lib/languages/plaintext";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import { Marked, type Tokens } from "marked";
import { escapeHtml } from "./html-text.js";

const LANGUAGES = {
	bash,
	css,
	diff,
	go,
	java,
	javascript,
	json,
	markdown,
	plaintext,
	python,
	rust,
	shell,
	typescript,
	xml,
	yaml,
};
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);
hljs.registerAliases(["text", "txt", "console", "log"], { languageName: "plaintext" });
hljs.registerAliases(["jsonc", "json5"], { languageName: "json" });

/** Guessing a language runs every grammar; beyond this size plain text is cheaper and good enough. */
const AUTO_DETECT_LIMIT = 5_000;
/** Highlighting is linear but not free; huge blocks (pasted files) are shown as plain text. */
const HIGHLIGHT_LIMIT = 200_000;

/** Highlighted HTML for a code block's content (without the surrounding pre/code). */
export function highlightCode(code: string, language?: string): string {
	if (code.length > HIGHLIGHT_LIMIT) return escapeHtml(code);
	const known = language && hljs.getLanguage(language) ? language : undefined;
	if (known) return hljs.highlight(code, { language: known, ignoreIllegals: true }).value;
	if (code.length > AUTO_DETECT_LIMIT) return escapeHtml(code);
	return hljs.highlightAuto(code).value;
}

/** A complete `<pre><code>` block; `language` is the fence's info word, possibly empty. */
export function codeBlock(code: string, language?: string): string {
	const safeLanguage = language?.replace(/[^\w+#.-]/g, "") ?? "";
	const languageClass = safeLanguage ? ` language-${safeLanguage}` : "";
	return `<pre><code class="hljs${languageClass}">${highlightCode(code, safeLanguage || undefined)}</code></pre>`;
}

/** Drops control characters and spaces, which browsers ignore inside a URL scheme (`java\tscript:`). */
function withoutIgnoredCharacters(href: string): string {
	let out = "";
	for (const character of href) {
		const code = character.charCodeAt(0);
		if (code > 0x20 && code !== 0x7f) out += character;
	}
	return out;
}

/** Only links that cannot run script or load anything on their own are kept. */
function safeLinkTarget(href: string): string | undefined {
	const compact = withoutIgnoredCharacters(href);
	const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(compact)?.[1]?.toLowerCase();
	if (scheme === undefined) return compact.startsWith("//") ? undefined : href;
	return scheme === "http" || scheme === "https" || scheme === "mailto" ? href : undefined;
}

/** Embedded images need no network; anything else becomes a link the reader may follow. */
const INLINE_IMAGE_URL = /^data:image\/(png|jpeg|gif|webp);base64,[a-z0-9+/=]+$/i;

const markdownRenderer = new Marked({ gfm: true, breaks: false, async: false });
markdownRenderer.use({
	renderer: {
		code(token: Tokens.Code): string {
			const language = token.lang?.trim().split(/\s+/, 1)[0];
			return codeBlock(token.text, language);
		},
		// Raw HTML in session text is shown as text, never passed through.
		html(token: Tokens.HTML | Tokens.Tag): string {
			const text = escapeHtml(token.text);
			return token.block ? `<p class="raw-html">${text}</p>` : text;
		},
		link(token: Tokens.Link): string {
			const label = this.parser.parseInline(token.tokens);
			const target = safeLinkTarget(token.href);
			if (target === undefined) return label;
			const title = token.title ? ` title="${escapeHtml(token.title)}"` : "";
			return `<a href="${escapeHtml(target)}"${title} rel="noopener noreferrer nofollow" target="_blank">${label}</a>`;
		},
		image(token: Tokens.Image): string {
			const alt = escapeHtml(token.text || "image");
			if (INLINE_IMAGE_URL.test(token.href)) return `<img src="${escapeHtml(token.href)}" alt="${alt}">`;
			const target = safeLinkTarget(token.href);
			if (target === undefined) return `[${alt}]`;
			return `<a href="${escapeHtml(target)}" rel="noopener noreferrer nofollow" target="_blank">[image: ${alt}]</a>`;
		},
	},
});

/** Markdown to HTML, with session-supplied HTML escaped and code highlighted. */
export function renderMarkdown(text: string): string {
	return markdownRenderer.parse(text, { async: false });
}
