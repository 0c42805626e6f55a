import { describe, expect, it } from "vitest";
import { scanOutputBytes } from "../../src/tools/shell-bytes.js";
import { RollingTail } from "../../src/tools/shell-output.js";
import { type TruncationResult, truncateTail } from "../../src/tools/truncate.js";

/** The straightforward definition truncateTail must agree with: split every line, walk back. */
function referenceTail(text: string, maxLines: number, maxBytes: number): TruncationResult {
	const lines = text.split("\n");
	if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
	const totalBytes = Buffer.byteLength(text);
	const base = { totalLines: lines.length, totalBytes, maxLines, maxBytes, firstLineExceedsLimit: false };
	if (lines.length <= maxLines && totalBytes <= maxBytes) {
		return {
			...base,
			content: text,
			truncated: false,
			truncatedBy: null,
			outputLines: lines.length,
			outputBytes: totalBytes,
			lastLinePartial: false,
		};
	}
	const kept: string[] = [];
	let bytes = 0;
	let truncatedBy: "lines" | "bytes" = "lines";
	let lastLinePartial = false;
	for (let index = lines.length - 1; index >= 0; index--) {
		if (kept.length >= maxLines) break;
		const line = lines[index] as string;
		const cost = Buffer.byteLength(line) + (kept.length > 0 ? 1 : 0);
		if (bytes + cost > maxBytes) {
			truncatedBy = "bytes";
			if (kept.length === 0) {
				const buffer = Buffer.from(line);
				let start = buffer.length - maxBytes;
				while (start < buffer.length && ((buffer[start] as number) & 0xc0) === 0x80) start++;
				const tail = buffer.subarray(start).toString();
				kept.push(tail);
				bytes = Buffer.byteLength(tail);
				lastLinePartial = true;
			}
			break;
		}
		kept.push(line);
		bytes += cost;
	}
	kept.reverse();
	return {
		...base,
		content: kept.join("\n"),
		truncated: true,
		truncatedBy,
		outputLines: kept.length,
		outputBytes: bytes,
		lastLinePartial,
	};
}

/** A deterministic pseudo-random generator, so a failure can be replayed. */
function generator(seed: number): () => number {
	let state = seed;
	return () => {
		state = (state * 1103515245 + 12345) % 2147483648;
		return state / 2147483648;
	};
}

const PIECES = ["a", "bc", "\n", "\n", "é", "€", "😀", "xyzxyzxyz", "", "\t"];

function randomText(random: () => number, length: number): string {
	let text = "";
	for (let index = 0; index < length; index++) text += PIECES[Math.floor(random() * PIECES.length)];
	return text;
}

describe("truncateTail", () => {
	it("agrees with the line-splitting definition on edge cases", () => {
		const cases = ["", "\n", "\n\n", "a", "a\n", "a\nb", "a\nb\n", "\na", "abcdef\n", "abcdefghij", "ab\n\ncd\n"];
		for (const text of cases) {
			for (const maxLines of [0, 1, 2, 3]) {
				for (const maxBytes of [0, 1, 2, 3, 5, 6, 7, 100]) {
					expect(truncateTail(text, { maxLines, maxBytes }), JSON.stringify({ text, maxLines, maxBytes })).toEqual(
						referenceTail(text, maxLines, maxBytes),
					);
				}
			}
		}
	});

	it("agrees with the line-splitting definition on random multi-byte text", () => {
		const random = generator(7);
		for (let round = 0; round < 500; round++) {
			const text = randomText(random, Math.floor(random() * 80));
			const maxLines = Math.floor(random() * 12);
			const maxBytes = Math.floor(random() * 60);
			expect(truncateTail(text, { maxLines, maxBytes }), JSON.stringify({ text, maxLines, maxBytes })).toEqual(
				referenceTail(text, maxLines, maxBytes),
			);
		}
	});

	it("keeps the last 2000 lines of a long output by default", () => {
		const text = `${Array.from({ length: 5000 }, (_, index) => String(index + 1)).join("\n")}\n`;
		const result = truncateTail(text);
		expect(result).toEqual(referenceTail(text, 2000, 50 * 1024));
		expect(result.content.startsWith("3001\n")).toBe(true);
		expect(result.totalLines).toBe(5000);
	});
});

describe("RollingTail", () => {
	it("reports the same truncation as the whole output, with the counts given by the caller or not", () => {
		const random = generator(11);
		const limits = { maxLines: 7, maxBytes: 40 };
		for (let round = 0; round < 100; round++) {
			const withCounts = new RollingTail(limits);
			const withoutCounts = new RollingTail(limits);
			let whole = "";
			const pieces = Math.floor(random() * 30);
			for (let piece = 0; piece < pieces; piece++) {
				const text = randomText(random, Math.floor(random() * 20));
				whole += text;
				withCounts.push(text, Buffer.byteLength(text), scanOutputBytes(Buffer.from(text)).newlines);
				withoutCounts.push(text);
			}
			const expected = referenceTail(whole, limits.maxLines, limits.maxBytes);
			const wholeResult = whole ? expected : { ...expected, totalLines: 0, outputLines: 0 };
			expect(withCounts.truncate(), JSON.stringify(whole)).toEqual(wholeResult);
			expect(withoutCounts.truncate()).toEqual(wholeResult);
		}
	});
});
