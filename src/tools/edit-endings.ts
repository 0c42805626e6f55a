/**
 * Line endings during an edit. Matching happens on an LF-only view of the file (models send LF
 * text), but the replacement is spliced into the original text, so every line outside the
 * replaced region keeps its own ending, CRLF or LF, even in a file that mixes both.
 */

type LineBreak = "\r\n" | "\n";

export function toLf(text: string): string {
	return text.replaceAll("\r\n", "\n");
}

/** An LF-only copy of a text and the way back to offsets in the original. */
export class LfView {
	readonly text: string;
	/** LF-view index of every LF that was a CRLF in the original, ascending. */
	private readonly crlfAt: number[] = [];

	constructor(readonly original: string) {
		let removed = 0;
		for (let index = original.indexOf("\r\n"); index !== -1; index = original.indexOf("\r\n", index + 2)) {
			this.crlfAt.push(index - removed);
			removed++;
		}
		this.text = removed === 0 ? original : toLf(original);
	}

	/** The original offset of an LF-view offset; a CRLF stays whole on either side of it. */
	toOriginal(offset: number): number {
		let low = 0;
		let high = this.crlfAt.length;
		// Counts the CRLFs whose LF lies before `offset`.
		while (low < high) {
			const middle = (low + high) >>> 1;
			if ((this.crlfAt[middle] as number) < offset) low = middle + 1;
			else high = middle;
		}
		return offset + low;
	}
}

/** The line breaks of `text[start, end)`, in order. */
function breaksIn(text: string, start: number, end: number): LineBreak[] {
	const breaks: LineBreak[] = [];
	for (let index = text.indexOf("\n", start); index !== -1 && index < end; index = text.indexOf("\n", index + 1)) {
		breaks.push(index > start && text[index - 1] === "\r" ? "\r\n" : "\n");
	}
	return breaks;
}

/** The break that ends the line around `at`, else the one before it, else LF. */
function nearbyBreak(text: string, at: number): LineBreak {
	const next = text.indexOf("\n", at);
	if (next !== -1) return next > 0 && text[next - 1] === "\r" ? "\r\n" : "\n";
	const previous = text.lastIndexOf("\n", at - 1);
	if (previous !== -1) return previous > 0 && text[previous - 1] === "\r" ? "\r\n" : "\n";
	return "\n";
}

/**
 * The replacement for `original[start, end)`, its line breaks chosen per line: the k-th break of
 * the new text takes the style of the k-th break of the replaced text (the last one when the new
 * text has more lines); a region without breaks lends the style of the line it sits in.
 */
export function withEndingsOf(original: string, start: number, end: number, newText: string): string {
	const lf = toLf(newText);
	if (!lf.includes("\n")) return lf;
	const breaks = breaksIn(original, start, end);
	const fallback = breaks[breaks.length - 1] ?? nearbyBreak(original, end);
	if (breaks.every((lineBreak) => lineBreak === fallback))
		return fallback === "\n" ? lf : lf.replaceAll("\n", fallback);
	let index = 0;
	return lf.replaceAll("\n", () => breaks[index++] ?? fallback);
}
