// What `@earendil-works/pi-tui` (and `@mariozechner/pi-tui`) resolve to inside an extension: the
// display components and text helpers renderers use. Terminal-bound parts (the TUI itself,
// editors, inputs, overlays, images) are stand-ins that name themselves when used.
import type { StandIn } from "./unavailable.js";

export {
	Box,
	type Component,
	Container,
	DynamicBorder,
	Markdown,
	Spacer,
	Text,
	TruncatedText,
} from "./tui-components.js";
export { isKeyRelease, isKeyRepeat, Key, type KeyId, matchesKey, parseKey } from "./tui-keys.js";
export { stripAnsi as stripTerminalSequences, truncateToWidth, visibleWidth, wrapTextWithAnsi } from "./tui-text.js";

/** Marks the cursor position in a rendered line (pi-tui's marker; nothing reads it here). */
export const CURSOR_MARKER = "\x1b_pi:c\x07";

/** An autocomplete suggestion (commands' `getArgumentCompletions`). */
export interface AutocompleteItem {
	value: string;
	label: string;
	description?: string;
}

export interface FuzzyMatch {
	matches: boolean;
	/** Lower is better: the characters skipped between matched ones. */
	score: number;
}

/** Whether the query's characters appear in the text in order (case-insensitive). */
export function fuzzyMatch(query: string, text: string): FuzzyMatch {
	const haystack = text.toLowerCase();
	let position = -1;
	let score = 0;
	for (const char of query.toLowerCase()) {
		const next = haystack.indexOf(char, position + 1);
		if (next < 0) return { matches: false, score: Number.POSITIVE_INFINITY };
		score += next - position - 1;
		position = next;
	}
	return { matches: true, score };
}

/** The items every whitespace- or slash-separated token of the query matches, best first. */
export function fuzzyFilter<T>(items: readonly T[], query: string, getText: (item: T) => string): T[] {
	const tokens = query.split(/[\s/]+/).filter(Boolean);
	const scored: { item: T; score: number }[] = [];
	for (const item of items) {
		const text = getText(item);
		const matches = tokens.map((token) => fuzzyMatch(token, text));
		if (matches.every((match) => match.matches))
			scored.push({ item, score: matches.reduce((sum, match) => sum + match.score, 0) });
	}
	return scored.sort((a, b) => a.score - b.score).map((entry) => entry.item);
}

// Terminal-bound parts of pi-tui, declared for extensions' types only: at run time each is a
// stand-in (see unavailable.ts) that names itself when used.
export declare const TUI: StandIn;
export declare const ProcessTerminal: StandIn;
export declare const Editor: StandIn;
export declare const Input: StandIn;
export declare const SelectList: StandIn;
export declare const SettingsList: StandIn;
export declare const Loader: StandIn;
export declare const CancellableLoader: StandIn;
export declare const Image: StandIn;
export declare const ScrollView: StandIn;
