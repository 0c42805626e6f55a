import { chmodSync, closeSync, openSync, symlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { temporaryDirectory, writeTree } from "../search-fixture.js";
import { describeWithTools, entriesOf, runTool } from "./external-tools.js";
import { atomicHits, findTool, grepTool, splitResult } from "./search-calls.js";

const MIB = 1024 * 1024;
/** 64-byte filler lines: a MiB of them is 16,384 lines. */
const FILLER_LINE = `${"filler text without the word we look for".padEnd(63, ".")}\n`;
const LINES_PER_MIB = MIB / FILLER_LINE.length;

/** Writes `mebibytes` MiB of filler lines and then `lastLine`, a chunk at a time; the last line's number. */
function writeBigFile(path: string, mebibytes: number, lastLine: string): number {
	const chunk = Buffer.from(FILLER_LINE.repeat(LINES_PER_MIB));
	const descriptor = openSync(path, "w");
	try {
		for (let written = 0; written < mebibytes; written++) writeSync(descriptor, chunk);
		writeSync(descriptor, `${lastLine}\n`);
	} finally {
		closeSync(descriptor);
	}
	return mebibytes * LINES_PER_MIB + 1;
}

describe("large files: grep finds a match on their last line", () => {
	const root = temporaryDirectory();
	let twelveLine = 0;
	let hundredLine = 0;

	beforeAll(() => {
		writeTree(root, { "small.txt": "nothing here\n" });
		twelveLine = writeBigFile(join(root, "twelve.log.txt"), 12, "the bigmarker12 at the end");
		hundredLine = writeBigFile(join(root, "hundred.txt"), 100, "the bigmarker100 at the end");
	});

	it("a file over 10 MiB, searched as part of a folder, literal and regex", async () => {
		const literal = splitResult(await grepTool(root, { pattern: "bigmarker12", literal: true }));
		expect(literal.lines).toEqual([`twelve.log.txt:${twelveLine}: the bigmarker12 at the end`]);
		const regex = splitResult(await grepTool(root, { pattern: "bigmarker1\\d\\b" }));
		expect(regex.lines).toEqual([`twelve.log.txt:${twelveLine}: the bigmarker12 at the end`]);
	});

	it("a file of 100 MiB, named as the path", async () => {
		const result = splitResult(await grepTool(root, { pattern: "bigmarker100", literal: true, path: "hundred.txt" }));
		expect(result.lines).toEqual([`hundred.txt:${hundredLine}: the bigmarker100 at the end`]);
	});

	it("find lists large files like any other", async () => {
		expect(splitResult(await findTool(root, { pattern: "*.txt" })).lines).toEqual([
			"hundred.txt",
			"small.txt",
			"twelve.log.txt",
		]);
	});
});

describe("binary files and invalid UTF-8", () => {
	const root = temporaryDirectory();
	writeTree(root, {
		"binary.dat": Buffer.from("PK\u0003\u0004\u0000\u0000 binmarker inside\nmore binmarker\n", "latin1"),
		"also-binary.bin": Buffer.concat([Buffer.from([0, 1, 2, 0]), Buffer.from("\nbinmarker again\n")]),
		"text.txt": "a textmarker line\nthe bin-marker is elsewhere\n",
		"invalid-utf8.txt": Buffer.concat([
			Buffer.from("first line\ncaf"),
			Buffer.from([0xe9, 0x20, 0xff, 0xfe]),
			Buffer.from(" utfmarker after invalid bytes\n"),
			Buffer.from([0xc3, 0x28]),
			Buffer.from(" second utfmarker\n"),
		]),
	});

	it("a file with a NUL byte is not searched when grep walks a folder", async () => {
		const result = splitResult(await grepTool(root, { pattern: "marker" }));
		expect(atomicHits(result.lines).map((hit) => `${hit.path}:${hit.line}`)).toEqual([
			"invalid-utf8.txt:2",
			"invalid-utf8.txt:3",
			"text.txt:1",
			"text.txt:2",
		]);
	});

	it("says so when binary files were what matched: nothing found among the text files", async () => {
		const result = await grepTool(root, { pattern: "binmarker" });
		const { lines, notice } = splitResult(result);
		expect(lines).toEqual([]);
		expect(`${lines.join("\n")}\n${notice}`.toLowerCase()).toContain("binary");
	});

	it("says the file is binary when it is the path searched", async () => {
		const result = splitResult(await grepTool(root, { pattern: "binmarker", path: "binary.dat" }));
		expect(result.lines).toEqual([]);
		expect(result.notice.toLowerCase()).toContain("binary");
	});

	it("a file with invalid UTF-8 still matches ASCII text, on the right lines", async () => {
		const result = splitResult(await grepTool(root, { pattern: "utfmarker", literal: true }));
		const hits = atomicHits(result.lines);
		expect(hits.map((hit) => `${hit.path}:${hit.line}`)).toEqual(["invalid-utf8.txt:2", "invalid-utf8.txt:3"]);
		expect(hits[0]?.text).toMatch(/^caf.+ utfmarker after invalid bytes$/);
		expect(hits[1]?.text).toMatch(/ second utfmarker$/);
	});

	describeWithTools("the same files through ripgrep", ["rg"], () => {
		it("rg lists the same files for the same searches", async () => {
			const rgFiles = (pattern: string) =>
				entriesOf(runTool("rg", ["-l", "--hidden", "--null", pattern], root), "\0").sort();
			const ours = async (pattern: string) => {
				const { lines } = splitResult(await grepTool(root, { pattern }));
				return [...new Set(atomicHits(lines).map((hit) => hit.path))].sort();
			};
			expect(await ours("marker")).toEqual(rgFiles("marker"));
			expect(await ours("binmarker")).toEqual(rgFiles("binmarker"));
			expect(await ours("utfmarker")).toEqual(rgFiles("utfmarker"));
		});
	});
});

describe.skipIf(process.getuid?.() === 0)("files and folders that cannot be read", () => {
	it("are skipped and named in the result, not silently", async () => {
		const root = temporaryDirectory();
		writeTree(root, {
			"open.txt": "a readmarker here\n",
			"closed.txt": "readmarker hidden\n",
			"shut/inner.txt": "readmarker\n",
		});
		chmodSync(join(root, "closed.txt"), 0o000);
		chmodSync(join(root, "shut"), 0o000);
		try {
			const { lines, notice } = splitResult(await grepTool(root, { pattern: "readmarker" }));
			expect(lines).toEqual(["open.txt:1: a readmarker here"]);
			expect(notice).toContain("2 files or folders could not be read and were skipped");
			expect(notice).toContain("closed.txt (EACCES)");
			expect(notice).toContain("shut (EACCES)");
		} finally {
			chmodSync(join(root, "shut"), 0o755);
		}
	});
});

describe.skipIf(process.platform !== "linux")("a file whose read fails", () => {
	it("is named in the result (a link to /proc/self/mem opens, but reading its start fails)", async () => {
		const root = temporaryDirectory();
		writeTree(root, { "plain.txt": "memmarker\n" });
		symlinkSync("/proc/self/mem", join(root, "mem"));
		const { lines, notice } = splitResult(await grepTool(root, { pattern: "memmarker" }));
		expect(lines).toEqual(["plain.txt:1: memmarker"]);
		expect(notice).toMatch(/^\[One file or folder could not be read and was skipped: mem \(E[A-Z]+\)\]$/);
	});
});
