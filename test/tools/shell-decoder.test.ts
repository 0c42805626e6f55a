import { StringDecoder } from "node:string_decoder";
import { describe, expect, it } from "vitest";
import { scanOutputBytes } from "../../src/tools/shell-bytes.js";
import { ShellTextDecoder, sanitizeShellText } from "../../src/tools/shell-output.js";

function generator(seed: number): () => number {
	let state = seed;
	return () => {
		state = (state * 1103515245 + 12345) & 0x7fffffff;
		return state / 0x7fffffff;
	};
}

/** Pieces command output is made of: ASCII, multi-byte characters, escapes, controls, invalid bytes. */
const PIECES = [
	"plain text ",
	"line\n",
	"tab\t",
	"é",
	"→",
	"😀",
	"\u0085",
	"\u00a0",
	"\x1b[1;31m",
	"\x1b]0;title\x07",
	"\r\n",
	"\x00",
	"\x7f",
	"\u2028",
];
const INVALID = [Buffer.from([0xff]), Buffer.from([0xc3]), Buffer.from([0xe2, 0x86]), Buffer.from([0xed, 0xa0, 0x80])];

function randomBytes(random: () => number): Buffer {
	const parts: Buffer[] = [];
	const count = Math.floor(random() * 40);
	for (let index = 0; index < count; index++) {
		const roll = random();
		if (roll < 0.05) parts.push(INVALID[Math.floor(random() * INVALID.length)] as Buffer);
		else if (roll < 0.4) parts.push(Buffer.from("x".repeat(Math.floor(random() * 30))));
		else parts.push(Buffer.from(PIECES[Math.floor(random() * PIECES.length)] as string));
	}
	return Buffer.concat(parts);
}

function randomChunks(random: () => number, bytes: Buffer): Buffer[] {
	const chunks: Buffer[] = [];
	let start = 0;
	while (start < bytes.length) {
		const end = Math.min(bytes.length, start + 1 + Math.floor(random() * 12));
		chunks.push(bytes.subarray(start, end));
		start = end;
	}
	return chunks;
}

describe("ShellTextDecoder", () => {
	it("decodes any chunking as a StringDecoder over the whole output, sanitised; verbatim text is its chunk", () => {
		const random = generator(5);
		let verbatimChunks = 0;
		for (let round = 0; round < 2000; round++) {
			const chunks = randomChunks(random, randomBytes(random));
			// Half the rounds pass what scanOutputBytes found, as runShell does.
			const scanned = round % 2 === 0;
			const decoder = new ShellTextDecoder();
			const reference = new StringDecoder("utf8");
			let decoded = "";
			let whole = "";
			for (const chunk of chunks) {
				const text = scanned ? decoder.write(chunk, scanOutputBytes(chunk).asciiControls) : decoder.write(chunk);
				if (decoder.verbatim) {
					verbatimChunks++;
					expect(Buffer.from(text).equals(chunk)).toBe(true);
				}
				decoded += text;
				whole += reference.write(chunk);
			}
			decoded += decoder.end();
			whole += reference.end();
			expect(decoded, JSON.stringify(chunks.map((chunk) => chunk.toString("hex")))).toBe(sanitizeShellText(whole));
		}
		expect(verbatimChunks).toBeGreaterThan(1000);
	});

	it("keeps a chunk as it is only when it holds whole characters and nothing to sanitise", () => {
		const decoder = new ShellTextDecoder();
		expect(decoder.write(Buffer.from("ascii\n"))).toBe("ascii\n");
		expect(decoder.verbatim).toBe(true);
		expect(decoder.write(Buffer.from("é→\n"))).toBe("é→\n");
		expect(decoder.verbatim).toBe(true);
		// A character cut off: held back, then completed by the next chunk.
		expect(decoder.write(Buffer.from([0x61, 0xe2, 0x86]))).toBe("a");
		expect(decoder.verbatim).toBe(false);
		expect(decoder.write(Buffer.from([0x92, 0x62]))).toBe("→b");
		expect(decoder.verbatim).toBe(false);
		expect(decoder.write(Buffer.from("again"))).toBe("again");
		expect(decoder.verbatim).toBe(true);
		expect(decoder.write(Buffer.from("red\x1b[31m\r\n"))).toBe("red\n");
		expect(decoder.verbatim).toBe(false);
		// An escape sequence cut off: held back, so the next chunk is not kept as it is either.
		expect(decoder.write(Buffer.from("x\x1b["))).toBe("x");
		expect(decoder.write(Buffer.from("32my"))).toBe("y");
		expect(decoder.verbatim).toBe(false);
		expect(decoder.write(Buffer.from([0xff, 0x0a]))).toBe("\uFFFD\n");
		expect(decoder.verbatim).toBe(false);
	});
});
