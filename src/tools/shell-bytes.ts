/** What one pass over a chunk of command output finds. */
export interface OutputScan {
	/** How many LF bytes it holds. */
	newlines: number;
	/**
	 * Whether it holds an ASCII control byte other than LF and TAB (DEL included): the characters
	 * that sanitising changes, as far as ASCII goes (bytes of 0x80 and above are not looked at).
	 */
	asciiControls: boolean;
}

/**
 * Counts the LF bytes of `bytes` and looks for ASCII control bytes, four bytes at a time (SWAR):
 * together, several times faster than a regular expression and an indexOf loop over the decoded
 * text, which matters for commands that print hundreds of thousands of lines. Each loop is a
 * function of its own: V8 optimises a long loop while it runs (on-stack replacement), and code
 * after it in the same function that had not run yet (the last bytes) would throw that
 * optimised code away again on every call.
 */
export function scanOutputBytes(bytes: Uint8Array): OutputScan {
	const length = bytes.length;
	// Bytes before the first 4-byte boundary (all of them when there is no whole word after it).
	const head = (4 - (bytes.byteOffset & 3)) & 3;
	if (length - head < 4) return unpack(scanBytes(bytes, 0, length));
	const wordCount = (length - head) >>> 2;
	const wordsEnd = head + wordCount * 4;
	const words = new Int32Array(bytes.buffer, bytes.byteOffset + head, wordCount);
	const first = scanBytes(bytes, 0, head);
	const middle = scanWords(words);
	const last = scanBytes(bytes, wordsEnd, length);
	return {
		newlines: Math.floor(first / 2) + Math.floor(middle / 2) + Math.floor(last / 2),
		asciiControls: first % 2 === 1 || middle % 2 === 1 || last % 2 === 1,
	};
}

/** The loops return the LF count times two, plus one when a control byte was seen (no allocation). */
function unpack(packed: number): OutputScan {
	return { newlines: Math.floor(packed / 2), asciiControls: packed % 2 === 1 };
}

function scanBytes(bytes: Uint8Array, start: number, end: number): number {
	let count = 0;
	let controls = 0;
	for (let index = start; index < end; index++) {
		const byte = bytes[index] as number;
		if (byte === 0x0a) count++;
		else if ((byte < 0x20 && byte !== 0x09) || byte === 0x7f) controls = 1;
	}
	return count * 2 + controls;
}

/**
 * Per byte of each word, as its high bit (no step carries into the next byte): `lf` when it is LF
 * (zero after XOR with 0x0a); a control byte when its own high bit is clear and its low seven
 * bits are under 0x09, from 0x0b to 0x1f, or 0x7f (adding 0x77, 0x75, 0x60 or 0x01 reaches 0x80
 * exactly from 0x09, 0x0b, 0x20 or 0x7f on).
 */
function scanWords(words: Int32Array): number {
	let count = 0;
	let controls = 0;
	for (let word = 0; word < words.length; word++) {
		const value = words[word] as number;
		const low = value & 0x7f7f7f7f;
		const lfBits = value ^ 0x0a0a0a0a;
		const lf = ~(((lfBits & 0x7f7f7f7f) + 0x7f7f7f7f) | lfBits | 0x7f7f7f7f);
		controls |= ~value & (~(low + 0x77777777) | ((low + 0x75757575) & ~(low + 0x60606060)) | (low + 0x01010101));
		// The LF bits moved down to each byte's low bit, summed by the multiplication into the top byte.
		count += Math.imul((lf >>> 7) & 0x01010101, 0x01010101) >>> 24;
	}
	return count * 2 + ((controls & 0x80808080) === 0 ? 0 : 1);
}
