import { safeStringify } from "../llm/safe-json.js";
import { LARGE_MESSAGE_CHARS, stringifySharing } from "../session/shared-json.js";

const LF = 0x0a;
const CR = 0x0d;

export type RecordHandler = (record: RecordText) => void;

/** One input record: its text, or why it could not be decoded. */
export type RecordText = { ok: true; text: string } | { ok: false; error: string };

/**
 * Splits a byte stream into records on LF only (never on U+2028/U+2029), strips one trailing CR,
 * and decodes each complete record as UTF-8 (so a character split across reads is fine). Invalid
 * UTF-8 is reported, not replaced. Records have no size limit; a partial record is kept as a list
 * of chunks and joined once, so a large record costs O(size).
 */
export class LineSplitter {
	private parts: Buffer[] = [];
	private partsLength = 0;
	private readonly decoder = new TextDecoder("utf-8", { fatal: true });

	constructor(private readonly onRecord: RecordHandler) {}

	push(chunk: Buffer): void {
		let start = 0;
		for (;;) {
			const newline = chunk.indexOf(LF, start);
			if (newline === -1) break;
			this.emit(this.take(chunk.subarray(start, newline)));
			start = newline + 1;
		}
		if (start < chunk.length) {
			this.parts.push(chunk.subarray(start));
			this.partsLength += chunk.length - start;
		}
	}

	/** Emits a final record that had no LF (end of input). */
	end(): void {
		if (this.partsLength > 0) this.emit(this.take(Buffer.alloc(0)));
	}

	/** Bytes of the incomplete record held so far. */
	get pendingBytes(): number {
		return this.partsLength;
	}

	private take(tail: Buffer): Buffer {
		if (this.parts.length === 0) return tail;
		this.parts.push(tail);
		const whole = Buffer.concat(this.parts, this.partsLength + tail.length);
		this.parts = [];
		this.partsLength = 0;
		return whole;
	}

	private emit(bytes: Buffer): void {
		const record = bytes.length > 0 && bytes[bytes.length - 1] === CR ? bytes.subarray(0, bytes.length - 1) : bytes;
		let text: string;
		try {
			text = this.decoder.decode(record);
		} catch {
			this.onRecord({ ok: false, error: "invalid UTF-8" });
			return;
		}
		this.onRecord({ ok: true, text });
	}
}

const SEPARATORS = /[\u2028\u2029]/g;

function escapeSeparators(json: string): string {
	// Two includes beat one regex scan: V8 answers them at once for a one-byte string (no such
	// character fits in it) and searches a two-byte one several times faster than a regex does.
	if (json.includes("\u2028") || json.includes("\u2029")) {
		return json.replace(SEPARATORS, (character) => (character === "\u2028" ? "\\u2028" : "\\u2029"));
	}
	return json;
}

/**
 * Serialises one output record as a JSON line. U+2028 and U+2029 are escaped, so clients that
 * (wrongly) split on them still see whole records; JSON parsers read the escapes back unchanged.
 * A record that does not serialise as it is (an extension's circular or bigint details, a value
 * nested thousands of levels deep) goes out with those parts replaced by a note: it never throws,
 * so no event is lost and no run is left without its end.
 */
export function serializeRecord(record: unknown): string {
	let json: string;
	try {
		json = JSON.stringify(record);
	} catch (error) {
		const reason = error instanceof Error ? error.message : String(error);
		process.stderr.write(
			`Warning: a record did not serialise as it is (${reason}); its unserialisable parts were replaced\n`,
		);
		json = safeStringify(record);
	}
	return `${escapeSeparators(json)}\n`;
}

/**
 * serializeRecord's line as parts, for a record that carries large messages (see shared-json.ts):
 * each large message's JSON is one part, serialised once for all the records of a run that carry
 * it. Joined, the parts are serializeRecord's line. Records without one are a single part.
 */
export function serializeRecordParts(record: unknown): string[] {
	let parts: string[] | undefined;
	try {
		parts = stringifySharing(record, true);
	} catch {
		// What does not serialise as it is gets serializeRecord's treatment (and its warning).
		parts = undefined;
	}
	if (!parts) return [serializeRecord(record)];
	const lastIndex = parts.length - 1;
	return parts.map((part, index) => (index === lastIndex ? `${escapeSeparators(part)}\n` : escapeSharedPart(part)));
}

/** The last shared message JSON escaped, and its escaped form: each record carrying it reuses it. */
let lastShared: { json: string; escaped: string } | undefined;

function escapeSharedPart(part: string): string {
	if (part.length < LARGE_MESSAGE_CHARS) return escapeSeparators(part);
	// The same string again compares at once (V8 compares identical strings by reference).
	if (lastShared?.json === part) return lastShared.escaped;
	lastShared = { json: part, escaped: escapeSeparators(part) };
	return lastShared.escaped;
}

/** Drops what escapeSharedPart keeps (with forgetSharedJson, once a run's records are written). */
export function forgetEscapedPart(): void {
	lastShared = undefined;
}

/**
 * Feeds `input` to `splitter`, calling `onInput` for every chunk first: input is activity from its
 * first byte, so idle work (the preload, the memory release) never starts while a large record is
 * still arriving.
 */
export function readRecords(input: NodeJS.ReadableStream, splitter: LineSplitter, onInput: () => void): void {
	input.on("data", (chunk: Buffer | string) => {
		onInput();
		splitter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
	});
}
