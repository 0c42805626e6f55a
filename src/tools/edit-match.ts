/**
 * Finding the text an edit replaces. An exact match is tried first; failing that, a tolerant match
 * on a normalised view of both texts forgives what models commonly get wrong when they retype code
 * (trailing spaces, typographic quotes and dashes, odd spaces, compatibility characters). The
 * tolerant match is mapped back to the original text so only the matched region changes.
 */

export type MatchResult =
	| { kind: "found"; start: number; end: number; tolerant: boolean }
	| { kind: "notFound" }
	| { kind: "notUnique"; count: number };

const SINGLE_QUOTES = /[\u2018\u2019\u201A\u201B]/g;
const DOUBLE_QUOTES = /[\u201C\u201D\u201E\u201F]/g;
/** Hyphen, non-breaking hyphen, figure dash, en dash, em dash, horizontal bar, minus sign. */
const DASHES = /[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]/g;
/** NBSP, the U+2000 block of spaces, narrow NBSP, medium mathematical space, ideographic space. */
const SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g;
/**
 * A character with its combining marks, so NFKC composes within one unit that maps back as a whole.
 * Made on first use: V8 builds a Unicode property class when the literal is first evaluated, which
 * cost start-up a fraction of a millisecond.
 */
let segment: RegExp | undefined;
function segmentPattern(): RegExp {
	segment ??= /\P{M}\p{M}*|\p{M}+/gu;
	return segment;
}
const WHITESPACE = /\s/;

function normalizeSegment(segment: string): string {
	return segment
		.normalize("NFKC")
		.replace(SINGLE_QUOTES, "'")
		.replace(DOUBLE_QUOTES, '"')
		.replace(DASHES, "-")
		.replace(SPACES, " ");
}

/** A normalised copy of a text; character i came from original[starts[i], ends[i]). */
interface NormalizedView {
	text: string;
	starts: number[];
	ends: number[];
}

export function buildNormalizedView(original: string): NormalizedView {
	const characters: string[] = [];
	const starts: number[] = [];
	const ends: number[] = [];
	const lines = original.split("\n");
	let lineStart = 0;
	lines.forEach((line, lineIndex) => {
		const lineOutputStart = characters.length;
		for (const match of line.matchAll(segmentPattern())) {
			const start = lineStart + match.index;
			const end = start + match[0].length;
			const normalized = normalizeSegment(match[0]);
			for (let index = 0; index < normalized.length; index++) {
				characters.push(normalized.charAt(index));
				starts.push(start);
				ends.push(end);
			}
		}
		// Trailing whitespace of every line is ignored (checked after normalising, so NBSP counts).
		while (characters.length > lineOutputStart && WHITESPACE.test(characters[characters.length - 1] ?? "")) {
			characters.pop();
			starts.pop();
			ends.pop();
		}
		const lineEnd = lineStart + line.length;
		if (lineIndex < lines.length - 1) {
			characters.push("\n");
			starts.push(lineEnd);
			ends.push(lineEnd + 1);
		}
		lineStart = lineEnd + 1;
	});
	return { text: characters.join(""), starts, ends };
}

/** The normalised form used for tolerant matching (the text of `buildNormalizedView`). */
export function normalizeForMatch(text: string): string {
	return buildNormalizedView(text).text;
}

/** Non-overlapping occurrences, left to right. */
function findOccurrences(haystack: string, needle: string): number[] {
	const positions: number[] = [];
	let from = 0;
	while (true) {
		const position = haystack.indexOf(needle, from);
		if (position === -1) return positions;
		positions.push(position);
		from = position + needle.length;
	}
}

/**
 * Finds the single place `oldText` occurs in `content`; both are expected with LF line endings.
 * `tolerant: false` skips the tolerant match (its cost grows with the size of `content`).
 */
export function findUniqueMatch(content: string, oldText: string, options: { tolerant?: boolean } = {}): MatchResult {
	if (oldText === "") return { kind: "notFound" };
	const exact = findOccurrences(content, oldText);
	if (exact.length > 1) return { kind: "notUnique", count: exact.length };
	const [exactStart] = exact;
	if (exactStart !== undefined)
		return { kind: "found", start: exactStart, end: exactStart + oldText.length, tolerant: false };
	if (options.tolerant === false) return { kind: "notFound" };

	const needle = normalizeForMatch(oldText);
	// Text that is only whitespace once normalised (blank lines) would match almost anywhere.
	if (needle.trim() === "") return { kind: "notFound" };
	const view = buildNormalizedView(content);
	const tolerant = findOccurrences(view.text, needle);
	if (tolerant.length > 1) return { kind: "notUnique", count: tolerant.length };
	const [viewStart] = tolerant;
	if (viewStart === undefined) return { kind: "notFound" };
	const start = view.starts[viewStart];
	const end = view.ends[viewStart + needle.length - 1];
	if (start === undefined || end === undefined) return { kind: "notFound" };
	return { kind: "found", start, end, tolerant: true };
}
