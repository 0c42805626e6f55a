import { describe, expect, it } from "vitest";
import { LineSplitter, type RecordText } from "../../src/rpc/framing.js";

function feed(pieces: Buffer[], end = true): RecordText[] {
	const records: RecordText[] = [];
	const splitter = new LineSplitter((record) => records.push(record));
	for (const piece of pieces) splitter.push(piece);
	if (end) splitter.end();
	expect(splitter.pendingBytes).toBe(0);
	return records;
}

/** Every way of cutting `bytes` into three reads. */
function everySplit(bytes: Buffer): Buffer[][] {
	const splits: Buffer[][] = [];
	for (let first = 0; first <= bytes.length; first++) {
		for (let second = first; second <= bytes.length; second++) {
			splits.push([bytes.subarray(0, first), bytes.subarray(first, second), bytes.subarray(second)]);
		}
	}
	return splits;
}

const BOM = [0xef, 0xbb, 0xbf];

describe("LineSplitter", () => {
	it("gives the same records however the reads are cut", () => {
		const streams = [
			Buffer.from("héllo→✓😀\r\nsecond\n", "utf8"),
			Buffer.from([...BOM, 0x61, 0x0d, 0x0a, ...BOM, 0x62, 0x0a]),
			Buffer.from([0x61, ...BOM, 0x62, 0x0a, 0x0d, 0x0d, 0x0a]),
			Buffer.from([0x61, 0xe2, 0x82, 0x0a, 0x62, 0x0a]),
			Buffer.from([0xf0, 0x9f, 0x98, 0x80, 0xff, 0x61, 0x0a, 0x63]),
			Buffer.from([0x80, 0x0a, 0xed, 0xa0, 0x80, 0x0a, 0xe2, 0x0d, 0x0a]),
		];
		for (const stream of streams) {
			const whole = feed([stream]);
			for (const split of everySplit(stream)) expect(feed(split), JSON.stringify([...stream])).toEqual(whole);
		}
	});

	it("drops a leading BOM and one trailing CR, keeps a BOM inside, and reports invalid UTF-8", () => {
		const stream = Buffer.from([...BOM, 0x61, 0x0d, 0x0a, 0x62, ...BOM, 0x0d, 0x0d, 0x0a, 0x61, 0xe2, 0x82, 0x0a]);
		expect(feed([stream])).toEqual([
			{ ok: true, text: "a" },
			{ ok: true, text: "b\ufeff\r" },
			{ ok: false, error: "invalid UTF-8" },
		]);
	});

	it("decodes a long record arriving in many reads to the same text", () => {
		const line = `${JSON.stringify({ type: "prompt", message: "ü€😀x".repeat(50_000) })}\n`;
		const bytes = Buffer.from(line, "utf8");
		const reads: Buffer[] = [];
		for (let offset = 0; offset < bytes.length; offset += 65_537) reads.push(bytes.subarray(offset, offset + 65_537));
		expect(feed(reads)).toEqual([{ ok: true, text: line.slice(0, -1) }]);
	});

	it("counts the held bytes of a long record and starts afresh after it", () => {
		const records: RecordText[] = [];
		const splitter = new LineSplitter((record) => records.push(record));
		const long = "y".repeat(300_000);
		splitter.push(Buffer.from(long.slice(0, 200_000)));
		splitter.push(Buffer.from(long.slice(200_000)));
		expect(splitter.pendingBytes).toBe(300_000);
		splitter.push(Buffer.from("\r\nnext\nla"));
		expect(splitter.pendingBytes).toBe(2);
		splitter.push(Buffer.from("st\n"));
		expect(records).toEqual([
			{ ok: true, text: long },
			{ ok: true, text: "next" },
			{ ok: true, text: "last" },
		]);
	});

	it("emits a last record without LF at the end of input", () => {
		expect(feed([Buffer.from("a\nb"), Buffer.from("c\r")])).toEqual([
			{ ok: true, text: "a" },
			{ ok: true, text: "bc" },
		]);
	});
});
