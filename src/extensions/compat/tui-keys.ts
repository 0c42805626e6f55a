// Key names as pi-tui spells them. No terminal input reaches an extension in RPC mode, so these
// only matter to code that builds or compares key ids; matchesKey knows the common sequences.

const NAMED = [
	"escape",
	"esc",
	"enter",
	"return",
	"tab",
	"space",
	"backspace",
	"delete",
	"insert",
	"clear",
	"home",
	"end",
	"pageUp",
	"pageDown",
	"up",
	"down",
	"left",
	"right",
	...Array.from({ length: 12 }, (_, index) => `f${index + 1}`),
] as const;

const SYMBOLS = {
	backtick: "`",
	hyphen: "-",
	equals: "=",
	leftbracket: "[",
	rightbracket: "]",
	backslash: "\\",
	semicolon: ";",
	quote: "'",
	comma: ",",
	period: ".",
	slash: "/",
	exclamation: "!",
	at: "@",
	hash: "#",
	dollar: "$",
	percent: "%",
	caret: "^",
	ampersand: "&",
	asterisk: "*",
	leftparen: "(",
	rightparen: ")",
	underscore: "_",
	plus: "+",
	pipe: "|",
	tilde: "~",
	leftbrace: "{",
	rightbrace: "}",
	colon: ":",
	lessthan: "<",
	greaterthan: ">",
	question: "?",
} as const;

const MODIFIERS = {
	ctrl: "ctrl",
	shift: "shift",
	alt: "alt",
	super: "super",
	ctrlShift: "ctrl+shift",
	shiftCtrl: "shift+ctrl",
	ctrlAlt: "ctrl+alt",
	altCtrl: "alt+ctrl",
	shiftAlt: "shift+alt",
	altShift: "alt+shift",
	ctrlSuper: "ctrl+super",
	superCtrl: "super+ctrl",
	shiftSuper: "shift+super",
	superShift: "super+shift",
	altSuper: "alt+super",
	superAlt: "super+alt",
	ctrlShiftAlt: "ctrl+shift+alt",
	ctrlShiftSuper: "ctrl+shift+super",
} as const;

type Modifier = keyof typeof MODIFIERS;
type KeyTable = { readonly [K in (typeof NAMED)[number]]: K } & typeof SYMBOLS & {
		readonly [M in Modifier]: <K extends string>(key: K) => `${(typeof MODIFIERS)[M]}+${K}`;
	};

function buildKey(): KeyTable {
	const table: Record<string, unknown> = { ...SYMBOLS };
	for (const name of NAMED) table[name] = name;
	for (const [name, prefix] of Object.entries(MODIFIERS)) table[name] = (key: string) => `${prefix}+${key}`;
	return table as KeyTable;
}

/** `Key.enter`, `Key.ctrl("c")`, ...: key ids as strings. */
export const Key = buildKey();

export type KeyId = string;

const SEQUENCES: Record<string, string> = {
	"\r": "enter",
	"\n": "enter",
	"\t": "tab",
	" ": "space",
	"\x1b": "escape",
	"\x7f": "backspace",
	"\x1b[A": "up",
	"\x1b[B": "down",
	"\x1b[C": "right",
	"\x1b[D": "left",
	"\x1b[H": "home",
	"\x1b[F": "end",
	"\x1b[3~": "delete",
	"\x1b[5~": "pageUp",
	"\x1b[6~": "pageDown",
};

/** The key id of a raw input sequence (`"\r"` is "enter", `"\x03"` is "ctrl+c"), if it is a known one. */
export function parseKey(data: string): string | undefined {
	const named = SEQUENCES[data];
	if (named) return named;
	const code = data.length === 1 ? data.charCodeAt(0) : -1;
	if (code >= 1 && code <= 26) return `ctrl+${String.fromCharCode(code + 96)}`;
	if (data.length === 2 && data[0] === "\x1b") return `alt+${data[1]}`;
	return data.length === 1 ? data : undefined;
}

const ALIASES: Record<string, string> = { esc: "escape", return: "enter" };

/** Whether a raw input sequence is the key `keyId`. */
export function matchesKey(data: string, keyId: string): boolean {
	const parsed = parseKey(data);
	return parsed !== undefined && parsed === (ALIASES[keyId] ?? keyId);
}

/** Key release and repeat events need the Kitty keyboard protocol, which a headless host never has. */
export function isKeyRelease(_data: string): boolean {
	return false;
}

export function isKeyRepeat(_data: string): boolean {
	return false;
}
