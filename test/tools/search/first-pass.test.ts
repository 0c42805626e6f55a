import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CHUNK_BYTES, FileScanner } from "../../../src/tools/search/file-scan.js";
import { scanPattern } from "../../../src/tools/search/patterns.js";

// The scanner's first pass skips files without the needle; these are the files it must not skip.
describe("the first pass over a file", () => {
	const root = mkdtempSync(join(tmpdir(), "atomic-first-pass-"));
	afterAll(() => rmSync(root, { recursive: true, force: true }));
	const file = (name: string, content: string | Buffer) => {
		const path = join(root, name);
		writeFileSync(path, content);
		return path;
	};
	const scan = (path: string, pattern: string, ignoreCase = false) =>
		new FileScanner(scanPattern({ pattern, ignoreCase, literal: true }), { context: 0, maxMatches: 10 }).scan(path);

	it("finds a needle that straddles two chunks, case-sensitively and not", () => {
		for (const offset of [1, 3, 7]) {
			const before = `${"x".repeat(99)}\n`.repeat(Math.ceil(CHUNK_BYTES / 100)).slice(0, CHUNK_BYTES - offset);
			const path = file(`straddle-${offset}.txt`, `${before}NeedleText here\nafter\n`);
			const line = before.split("\n").length;
			expect(scan(path, "NeedleText").lines).toEqual([
				{ number: line, text: `${before.split("\n").at(-1)}NeedleText here`, match: true },
			]);
			expect(scan(path, "needletext", true).lines.map((hit) => hit.number)).toEqual([line]);
		}
	});

	it("reports a match in a binary part and a long line searched in part only when the needle is there", () => {
		const binary = file("binary.bin", Buffer.concat([Buffer.from("abc\n"), Buffer.alloc(10), Buffer.from("zzz\n")]));
		expect(scan(binary, "nothing-here")).toMatchObject({ binaryMatched: false, lines: [] });
		expect(scan(binary, "zzz")).toMatchObject({ binary: true, binaryMatched: true, lines: [] });
		const long = file("long.txt", `${"a".repeat(9 * 1024 * 1024)}needle\n`);
		expect(scan(long, "nothing-here")).toMatchObject({ longLine: false, lines: [] });
		expect(scan(long, "needle")).toMatchObject({ longLine: true, lines: [] });
		const plain = file("plain.txt", "one\ntwo\n");
		expect(scan(plain, "three")).toEqual({
			lines: [],
			cut: false,
			binary: false,
			binaryMatched: false,
			longLine: false,
		});
		expect(scan(plain, "two").lines).toEqual([{ number: 2, text: "two", match: true }]);
	});
});
