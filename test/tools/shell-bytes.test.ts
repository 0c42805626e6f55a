import { describe, expect, it } from "vitest";
import { scanOutputBytes } from "../../src/tools/shell-bytes.js";

function generator(seed: number): () => number {
	let state = seed;
	return () => {
		state = (state * 1103515245 + 12345) % 2147483648;
		return state / 2147483648;
	};
}

/** LF, TAB and the bytes next to them, every other control byte, DEL, and high bytes that could carry. */
const BYTES = [0x0a, 0x09, 0x0b, 0x08, 0x0d, 0x1b, 0x00, 0x1f, 0x20, 0x7f, 0x7e, 0x80, 0x8a, 0x9f, 0xc2, 0xff, 0x41];

describe("scanOutputBytes", () => {
	it("counts LF bytes and finds ASCII control bytes (not LF or TAB) at any alignment and length", () => {
		const random = generator(3);
		for (let round = 0; round < 3000; round++) {
			const pool = Buffer.alloc(400);
			// Mostly plain bytes, so that many rounds hold no control byte at all.
			const rare = random() < 0.5 ? 0 : 0.02;
			for (let index = 0; index < pool.length; index++) {
				const roll = random();
				pool[index] =
					roll < 0.2
						? 0x0a
						: roll < 0.25
							? 0x09
							: roll < 0.25 + rare
								? (BYTES[Math.floor(random() * BYTES.length)] as number)
								: 0x41 + Math.floor(random() * 0x3e);
			}
			const start = Math.floor(random() * 64);
			const bytes = pool.subarray(start, start + Math.floor(random() * 300));
			let newlines = 0;
			let controls = false;
			for (const byte of bytes) {
				if (byte === 0x0a) newlines++;
				else if ((byte < 0x20 && byte !== 0x09) || byte === 0x7f) controls = true;
			}
			expect(scanOutputBytes(bytes), `start ${start} bytes ${bytes.toString("hex")}`).toEqual({
				newlines,
				asciiControls: controls,
			});
		}
	});

	it("classifies every byte value in every position of a word", () => {
		const words = new Int32Array(2);
		const bytes = new Uint8Array(words.buffer);
		for (let position = 0; position < bytes.length; position++) {
			for (let value = 0; value < 256; value++) {
				bytes.fill(0x41);
				bytes[position] = value;
				const control = (value < 0x20 && value !== 0x09 && value !== 0x0a) || value === 0x7f;
				expect(scanOutputBytes(bytes), `byte ${value} at ${position}`).toEqual({
					newlines: value === 0x0a ? 1 : 0,
					asciiControls: control,
				});
			}
		}
	});

	it("handles long and empty inputs", () => {
		expect(scanOutputBytes(Buffer.from("\n".repeat(100_001)))).toEqual({ newlines: 100_001, asciiControls: false });
		expect(scanOutputBytes(Buffer.from(`${"x\t\n".repeat(10_000)}\x1b`))).toEqual({
			newlines: 10_000,
			asciiControls: true,
		});
		expect(scanOutputBytes(Buffer.from("é€😀\u0085"))).toEqual({ newlines: 0, asciiControls: false });
		expect(scanOutputBytes(new Uint8Array(0))).toEqual({ newlines: 0, asciiControls: false });
	});
});
