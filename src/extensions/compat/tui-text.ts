// Text measuring and wrapping as pi-tui offers it to renderers, for plain and ANSI-styled text.

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching terminal escape sequences is the point
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

/** The text without terminal escape sequences. */
export function stripAnsi(text: string): string {
	return text.replace(ANSI, "");
}

/** East Asian wide and fullwidth characters, and emoji, take two columns. */
function isWide(codePoint: number): boolean {
	return (
		(codePoint >= 0x1100 && codePoint <= 0x115f) ||
		(codePoint >= 0x2e80 && codePoint <= 0xa4cf) ||
		(codePoint >= 0xac00 && codePoint <= 0xd7a3) ||
		(codePoint >= 0xf900 && codePoint <= 0xfaff) ||
		(codePoint >= 0xfe30 && codePoint <= 0xfe4f) ||
		(codePoint >= 0xff00 && codePoint <= 0xff60) ||
		(codePoint >= 0xffe0 && codePoint <= 0xffe6) ||
		(codePoint >= 0x1f300 && codePoint <= 0x1faff) ||
		(codePoint >= 0x20000 && codePoint <= 0x3fffd)
	);
}

function charWidth(char: string): number {
	const codePoint = char.codePointAt(0) ?? 0;
	if (codePoint === 0 || codePoint < 32 || (codePoint >= 0x7f && codePoint < 0xa0)) return 0;
	// Combining marks and zero-width joiners/variation selectors.
	if (/\p{Mn}|\p{Me}|\u200d|[\ufe00-\ufe0f]/u.test(char)) return 0;
	return isWide(codePoint) ? 2 : 1;
}

/** Terminal columns the text takes (escape sequences take none). */
export function visibleWidth(text: string): number {
	let width = 0;
	for (const char of stripAnsi(text)) width += charWidth(char);
	return width;
}

/** Cuts the text to `maxWidth` columns, ending with `ellipsis` when cut; `pad` fills up with spaces. */
export function truncateToWidth(text: string, maxWidth: number, ellipsis = "...", pad = false): string {
	const width = visibleWidth(text);
	if (width <= maxWidth) return pad ? text + " ".repeat(maxWidth - width) : text;
	const room = Math.max(0, maxWidth - visibleWidth(ellipsis));
	let kept = "";
	let used = 0;
	for (const char of stripAnsi(text)) {
		const next = charWidth(char);
		if (used + next > room) break;
		kept += char;
		used += next;
	}
	const cut = kept + (maxWidth >= visibleWidth(ellipsis) ? ellipsis : "");
	return pad ? cut + " ".repeat(Math.max(0, maxWidth - visibleWidth(cut))) : cut;
}

/** Word-wraps each line of the text to `width` columns (words longer than a line are split). */
export function wrapTextWithAnsi(text: string, width: number): string[] {
	const limit = Math.max(1, Math.floor(width));
	const lines: string[] = [];
	for (const paragraph of text.split("\n")) {
		let line = "";
		for (const word of paragraph.split(/(\s+)/)) {
			if (word === "") continue;
			if (visibleWidth(line + word) <= limit) {
				line += word;
				continue;
			}
			if (line.trim() !== "") lines.push(line.trimEnd());
			line = "";
			if (/^\s+$/.test(word)) continue;
			let rest = word;
			while (visibleWidth(rest) > limit) {
				const piece = truncateToWidth(rest, limit, "");
				lines.push(piece);
				rest = rest.slice(piece.length);
			}
			line = rest;
		}
		lines.push(line.trimEnd());
	}
	return lines;
}
