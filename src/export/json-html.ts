import { escapeHtml } from "./html-text.js";

/** Strings (a key when a colon follows), literals and numbers of JSON text. */
const JSON_TOKEN = /("(?:[^"\\\n]|\\.)*")(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;

/**
 * Highlights JSON that `JSON.stringify` produced, with highlight.js class names. A tokenizer
 * this small is enough for known-valid JSON and many times faster than a grammar, which matters
 * for sessions with thousands of tool calls.
 */
export function highlightJson(json: string): string {
	const parts: string[] = [];
	let last = 0;
	for (const match of json.matchAll(JSON_TOKEN)) {
		const start = match.index;
		if (start > last) parts.push(escapeHtml(json.slice(last, start)));
		const [token, string, colon, literal, number] = match;
		if (string !== undefined) {
			parts.push(`<span class="${colon ? "hljs-attr" : "hljs-string"}">${escapeHtml(string)}</span>`);
			if (colon) parts.push(escapeHtml(colon));
		} else if (literal !== undefined) {
			parts.push(`<span class="hljs-literal">${literal}</span>`);
		} else if (number !== undefined) {
			parts.push(`<span class="hljs-number">${number}</span>`);
		}
		last = start + token.length;
	}
	if (last < json.length) parts.push(escapeHtml(json.slice(last)));
	return parts.join("");
}
