/**
 * Random RPC input for the framing fuzz: records (valid ordered commands, lines that must get an
 * id-less error, commands poisoned with invalid UTF-8) encoded as one byte stream, and the cut
 * points and pauses it is written with.
 */
import fc from "fast-check";

/**
 * Text, or a description of text too big to print in a counterexample: `huge` x's followed by
 * non-ASCII characters, or 10,000 levels of nesting.
 */
export type FuzzText = string | { huge: number } | { deep: DeepForm };

export type FuzzLine =
	| { kind: "name"; name: string | { huge: number }; crlf: boolean }
	| { kind: "state"; padding: FuzzText | undefined; crlf: boolean }
	/** A well-formed command with invalid UTF-8 inside a string: a parse error, so no id. */
	| { kind: "poisoned"; sequence: number[] }
	/** Bytes that can never be a command object, so their error response carries no id. */
	| { kind: "garbage"; bytes: Buffer }
	/** Deep nesting or an unterminated huge string on its own: never a command with an id. */
	| { kind: "garbage"; text: { huge: number } | { deep: DeepForm } };

export interface FuzzScenario {
	lines: FuzzLine[];
	/** Cut points as fractions of the stream length. */
	cuts: number[];
	/** Cut points as fractions of the list of UTF-8 continuation bytes: cuts inside a character. */
	characterCuts: number[];
	/** Milliseconds to pause after each chunk, used in turn. */
	pauses: number[];
}

const DEPTH = 10_000;

const specialCharacter = fc.constantFrom(
	"\u2028",
	"\u2029",
	"😀",
	"𝄞",
	"\u{10ffff}",
	"\ud800",
	"\udfff",
	"\u0000",
	"\r",
	"\n",
	" ",
	"\t",
	"\ufeff",
	"é",
	'"',
	"\\",
);

/** One character: any code point, often a separator, an astral or lone surrogate, a quote or a control. */
const fuzzCharacter = fc.oneof(
	{ weight: 3, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) },
	{ weight: 2, arbitrary: specialCharacter },
);

export const fuzzText = fc.string({ unit: fuzzCharacter, maxLength: 60, size: "medium" });

/** A few hundred KiB to 1.5 MiB of text. */
const hugeText = fc.integer({ min: 200_000, max: 1_500_000 }).map((huge) => ({ huge }));

const DEEP_FORMS = {
	/** Unclosed arrays: a parse error. */
	open: () => "[".repeat(DEPTH),
	/** Closed arrays: valid JSON, not an object. */
	arrays: () => "[".repeat(DEPTH) + "]".repeat(DEPTH),
	/** Unclosed objects: a parse error. */
	openObjects: () => '{"a":'.repeat(DEPTH),
	/** Closed objects without a type or id. */
	objects: () => `${'{"a":'.repeat(DEPTH)}1${"}".repeat(DEPTH)}`,
	braces: () => "{".repeat(DEPTH),
};
export type DeepForm = keyof typeof DEEP_FORMS;
const deepForm = fc.constantFrom(...(Object.keys(DEEP_FORMS) as DeepForm[]));

/** The text a FuzzText describes. */
export function textOf(text: FuzzText): string {
	if (typeof text === "string") return text;
	if ("huge" in text) return `${"x".repeat(text.huge)}é😀\u2028`;
	return DEEP_FORMS[text.deep]();
}

const JSON_WHITESPACE = new Set([0x20, 0x09, 0x0d]);

/** No LF inside, and never an object (a leading `{` becomes `#`), so the answer has no id. */
function neverACommand(bytes: Uint8Array): Buffer {
	const line = Buffer.from(bytes.map((byte) => (byte === 0x0a ? 0x20 : byte)));
	const first = line.findIndex((byte) => !JSON_WHITESPACE.has(byte));
	if (first >= 0 && line[first] === 0x7b) line[first] = 0x23;
	return line;
}

const INVALID_UTF8: number[][] = [
	[0xff],
	[0xfe, 0xff],
	[0x80],
	[0xc0, 0x80], // overlong NUL
	[0xe0, 0x80, 0xaf], // overlong "/"
	[0xed, 0xa0, 0x80], // an encoded surrogate
	[0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
	[0xe2, 0x82], // a truncated "€"
	[0xf0, 0x9f, 0x98], // a truncated "😀"
];

const garbageBytes = fc
	.oneof(
		{ weight: 4, arbitrary: fc.uint8Array({ maxLength: 120, size: "medium" }).map(neverACommand) },
		{ weight: 4, arbitrary: fuzzText.map((text) => neverACommand(Buffer.from(text, "utf8"))) },
		{ weight: 2, arbitrary: fc.constantFrom(...INVALID_UTF8).map((sequence) => Buffer.from(sequence)) },
		{ weight: 2, arbitrary: fc.constantFrom("", " ", "\t \t", "\r", "\r\r") },
		{ weight: 2, arbitrary: fc.constantFrom("[]", "5", "null", "true", '"x"', "-0", "1e400", '"\u2028"') },
	)
	.map((line): FuzzLine => ({ kind: "garbage", bytes: typeof line === "string" ? Buffer.from(line, "utf8") : line }));

const garbage: fc.Arbitrary<FuzzLine> = fc.oneof(
	{ weight: 14, arbitrary: garbageBytes },
	{ weight: 2, arbitrary: deepForm.map((deep): FuzzLine => ({ kind: "garbage", text: { deep } })) },
	{ weight: 1, arbitrary: hugeText.map((text): FuzzLine => ({ kind: "garbage", text })) },
);

const padding = fc.oneof(
	{ weight: 6, arbitrary: fc.constant(undefined) },
	{ weight: 2, arbitrary: fuzzText },
	{ weight: 1, arbitrary: fc.constantFrom<FuzzText>({ deep: "arrays" }, { deep: "objects" }) },
	{ weight: 1, arbitrary: hugeText },
);

export const fuzzLine: fc.Arbitrary<FuzzLine> = fc.oneof(
	{
		weight: 4,
		arbitrary: fc.record({
			kind: fc.constant("name" as const),
			name: fc.oneof({ weight: 12, arbitrary: fuzzText }, { weight: 1, arbitrary: hugeText }),
			crlf: fc.boolean(),
		}),
	},
	{ weight: 4, arbitrary: fc.record({ kind: fc.constant("state" as const), padding, crlf: fc.boolean() }) },
	{
		weight: 1,
		arbitrary: fc.record({ kind: fc.constant("poisoned" as const), sequence: fc.constantFrom(...INVALID_UTF8) }),
	},
	{ weight: 4, arbitrary: garbage },
);

/** Uniform in [0, 1): fast-check's default bias would pile the cuts up at the ends. */
export const fraction = fc.noBias(fc.integer({ min: 0, max: 999_999 })).map((value) => value / 1_000_000);

export const fuzzScenario: fc.Arbitrary<FuzzScenario> = fc.record({
	lines: fc.array(fuzzLine, { minLength: 1, maxLength: 40, size: "max" }),
	cuts: fc.array(fraction, { maxLength: 40, size: "max" }),
	characterCuts: fc.array(fraction, { maxLength: 12, size: "max" }),
	pauses: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 8 }),
});

/** The bytes of one line (without its LF); `id` names commands that have one. */
export function encodeLine(line: FuzzLine, id: string): Buffer {
	const ending = "crlf" in line && line.crlf ? "\r" : "";
	switch (line.kind) {
		case "name": {
			const name = textOf(line.name);
			return Buffer.from(`${JSON.stringify({ id, type: "set_session_name", name })}${ending}`, "utf8");
		}
		case "state": {
			if (line.padding === undefined) return Buffer.from(`${JSON.stringify({ id, type: "get_state" })}${ending}`);
			// 10,000 levels of nesting cannot go through JSON.stringify, so the text is assembled.
			const padding = line.padding;
			const extra =
				typeof padding === "object" && "deep" in padding ? textOf(padding) : JSON.stringify({ text: textOf(padding) });
			const head = JSON.stringify({ id, type: "get_state" }).slice(0, -1);
			return Buffer.from(`${head},"padding":${extra}}${ending}`, "utf8");
		}
		case "poisoned": {
			const head = Buffer.from(`${JSON.stringify({ id, type: "get_state" }).slice(0, -1)},"padding":"é`, "utf8");
			return Buffer.concat([head, Buffer.from(line.sequence), Buffer.from('"}')]);
		}
		case "garbage":
			if ("bytes" in line) return line.bytes;
			// An unterminated string, or the nesting as it is.
			return Buffer.from("huge" in line.text ? `"${textOf(line.text)}` : textOf(line.text), "utf8");
	}
}

/** The stream cut at the scenario's points (sorted, deduplicated, never empty chunks). */
export function cutStream(stream: Buffer, scenario: FuzzScenario): Buffer[] {
	const continuation: number[] = [];
	for (let index = 0; index < stream.length; index++) {
		const byte = stream[index] as number;
		if (byte >= 0x80 && byte <= 0xbf) continuation.push(index);
	}
	const points = new Set<number>();
	for (const cut of scenario.cuts) points.add(Math.floor(cut * stream.length));
	if (continuation.length > 0) {
		for (const cut of scenario.characterCuts) {
			points.add(continuation[Math.min(continuation.length - 1, Math.floor(cut * continuation.length))] as number);
		}
	}
	const sorted = [...points].filter((point) => point > 0 && point < stream.length).sort((a, b) => a - b);
	const chunks: Buffer[] = [];
	let previous = 0;
	for (const point of [...sorted, stream.length]) {
		chunks.push(stream.subarray(previous, point));
		previous = point;
	}
	return chunks;
}
