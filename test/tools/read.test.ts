import { mkdir, mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentToolResult } from "../../src/agent/types.js";
import { createReadTool, detectImageMimeType, type ReadToolDetails } from "../../src/tools/read.js";
import { selectLines } from "../../src/tools/read-selection.js";

/** A 1x1 transparent PNG. */
const PNG_BYTES = Buffer.from(
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
	"base64",
);

let dir: string;
const signal = new AbortController().signal;

beforeEach(async () => {
	dir = await mkdtemp(join(tmpdir(), "atomic-read-"));
});

afterEach(async () => {
	await rm(dir, { recursive: true, force: true });
});

function read(args: { path: string; offset?: number; limit?: number }, abortSignal = signal) {
	return createReadTool({ cwd: dir }).execute("call-1", args, abortSignal, () => undefined);
}

function textOf(result: AgentToolResult<ReadToolDetails>): string {
	const [first] = result.content;
	if (first?.type !== "text") throw new Error("expected a text block first");
	return first.text;
}

function numberedLines(count: number): string {
	return Array.from({ length: count }, (_, index) => `line${index + 1}`).join("\n") + "\n";
}

describe("read: text", () => {
	it("says a file is empty instead of returning an empty text block", async () => {
		await writeFile(join(dir, "empty.txt"), "");
		expect(textOf(await read({ path: "empty.txt" }))).toBe("(empty file)");
	});

	it("returns a small file whole, without notices", async () => {
		await writeFile(join(dir, "small.txt"), "one\ntwo\nthree\n");
		const result = await read({ path: "small.txt" });
		expect(result.content).toEqual([{ type: "text", text: "one\ntwo\nthree" }]);
		expect(result.details).toEqual({});
	});

	it("slices by offset and limit and says how many lines remain", async () => {
		await writeFile(join(dir, "ten.txt"), numberedLines(10));
		expect(textOf(await read({ path: "ten.txt", offset: 3, limit: 2 }))).toBe(
			"line3\nline4\n\n[6 more lines in file. Use offset=5 to continue.]",
		);
		expect(textOf(await read({ path: "ten.txt", limit: 1 }))).toBe(
			"line1\n\n[9 more lines in file. Use offset=2 to continue.]",
		);
	});

	it("adds no notice when the slice reaches the end", async () => {
		await writeFile(join(dir, "ten.txt"), numberedLines(10));
		expect(textOf(await read({ path: "ten.txt", offset: 9 }))).toBe("line9\nline10");
		expect(textOf(await read({ path: "ten.txt", offset: 9, limit: 5 }))).toBe("line9\nline10");
		expect(textOf(await read({ path: "ten.txt", offset: 10, limit: 1 }))).toBe("line10");
	});

	it("rejects an offset past the end", async () => {
		await writeFile(join(dir, "ten.txt"), numberedLines(10));
		await expect(read({ path: "ten.txt", offset: 11 })).rejects.toThrow(
			"Offset 11 is beyond end of file (10 lines total)",
		);
	});

	it("truncates by lines and says where to continue", async () => {
		await writeFile(join(dir, "long.txt"), numberedLines(2500));
		const result = await read({ path: "long.txt" });
		const expectedBody = numberedLines(2000).slice(0, -1);
		expect(textOf(result)).toBe(`${expectedBody}\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]`);
		expect(result.details?.truncation?.truncatedBy).toBe("lines");
		expect(result.details?.truncation?.outputLines).toBe(2000);

		const fromMiddle = textOf(await read({ path: "long.txt", offset: 100 }));
		expect(fromMiddle.startsWith("line100\n")).toBe(true);
		expect(fromMiddle.endsWith("line2099\n\n[Showing lines 100-2099 of 2500. Use offset=2100 to continue.]")).toBe(
			true,
		);

		const rest = await read({ path: "long.txt", offset: 2001 });
		expect(textOf(rest)).toBe(numberedLines(2500).split("\n").slice(2000, 2500).join("\n"));
		expect(rest.details).toEqual({});
	});

	it("truncates by bytes and mentions the 50KB limit", async () => {
		const lines = Array.from({ length: 100 }, (_, index) => String(index + 1).padEnd(1000, "x"));
		await writeFile(join(dir, "wide.txt"), lines.join("\n"));
		const result = await read({ path: "wide.txt" });
		// 51 lines of 1000 bytes plus 50 newlines fit in 51200 bytes; a 52nd does not.
		expect(textOf(result)).toBe(
			`${lines.slice(0, 51).join("\n")}\n\n[Showing lines 1-51 of 100 (50.0KB limit). Use offset=52 to continue.]`,
		);
		expect(result.details?.truncation?.truncatedBy).toBe("bytes");
	});

	it("prefers the truncation notice over the remaining-lines notice", async () => {
		await writeFile(join(dir, "long.txt"), numberedLines(2500));
		const text = textOf(await read({ path: "long.txt", offset: 1, limit: 2100 }));
		expect(text.endsWith("line2000\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]")).toBe(true);
	});

	it("suggests bash when the first line alone is over the byte limit", async () => {
		await writeFile(join(dir, "big.txt"), `short\n${"y".repeat(60_000)}\nafter\n`);
		const result = await read({ path: "big.txt", offset: 2 });
		expect(result.content).toEqual([
			{
				type: "text",
				text: "[Line 2 is 58.6KB, over the 50.0KB limit. Use bash: sed -n '2p' big.txt | head -c 51200]",
			},
		]);
		expect(result.details?.truncation?.firstLineExceedsLimit).toBe(true);
		expect(textOf(await read({ path: "big.txt", offset: 3 }))).toBe("after");
	});

	it("quotes an awkward path in the bash hint", async () => {
		await writeFile(join(dir, "my file.txt"), "z".repeat(60_000));
		expect(textOf(await read({ path: "my file.txt" }))).toBe(
			`[Line 1 is 58.6KB, over the 50.0KB limit. Use bash: sed -n '1p' '${join(dir, "my file.txt")}' | head -c 51200]`,
		);
	});

	it("drops a UTF-8 byte order mark", async () => {
		await writeFile(join(dir, "bom.txt"), "\uFEFFhello\n");
		expect(textOf(await read({ path: "bom.txt" }))).toBe("hello");
	});
});

describe("read: images and binaries", () => {
	it("detects a PNG by content even when named .txt", async () => {
		await writeFile(join(dir, "picture.txt"), PNG_BYTES);
		const result = await read({ path: "picture.txt" });
		expect(result.content).toEqual([
			{ type: "text", text: "Read image file [image/png]" },
			{ type: "image", data: PNG_BYTES.toString("base64"), mimeType: "image/png" },
		]);
	});

	it("reads a text file named .png as text", async () => {
		await writeFile(join(dir, "fake.png"), "not an image\n");
		expect((await read({ path: "fake.png" })).content).toEqual([{ type: "text", text: "not an image" }]);
	});

	it("reads a GIF as an image", async () => {
		const gif = Buffer.concat([Buffer.from("GIF89a", "latin1"), Buffer.from([1, 0, 1, 0, 0, 0, 0, 0x3b])]);
		await writeFile(join(dir, "anim"), gif);
		const result = await read({ path: "anim" });
		expect(result.content[1]).toEqual({ type: "image", data: gif.toString("base64"), mimeType: "image/gif" });
	});

	it("recognises each supported signature", () => {
		expect(detectImageMimeType(PNG_BYTES)).toBe("image/png");
		expect(detectImageMimeType(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]))).toBe("image/jpeg");
		expect(detectImageMimeType(Buffer.from("GIF87a....", "latin1"))).toBe("image/gif");
		expect(detectImageMimeType(Buffer.from("GIF89a....", "latin1"))).toBe("image/gif");
		expect(detectImageMimeType(Buffer.from("RIFF\x10\x00\x00\x00WEBPVP8 ", "latin1"))).toBe("image/webp");
		expect(detectImageMimeType(Buffer.from("RIFF\x10\x00\x00\x00WAVEfmt ", "latin1"))).toBeUndefined();
		expect(detectImageMimeType(Buffer.from("GIF80a", "latin1"))).toBeUndefined();
		expect(detectImageMimeType(Buffer.from([0x89, 0x50, 0x4e]))).toBeUndefined();
	});

	it("refuses an image over 10MB with an error text", async () => {
		const big = Buffer.alloc(11 * 1024 * 1024);
		PNG_BYTES.copy(big);
		await writeFile(join(dir, "huge.png"), big);
		const result = await read({ path: "huge.png" });
		expect(result).toEqual({
			content: [{ type: "text", text: "Image file huge.png is 11.0MB, over the 10.0MB limit for images." }],
			details: {},
			isError: true,
		});
	});

	it("refuses a binary file that is not an image", async () => {
		await writeFile(join(dir, "data.bin"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01]));
		await expect(read({ path: "data.bin" })).rejects.toThrow(
			"Cannot read data.bin: it is a binary file (6B), not text or a supported image (PNG, JPEG, GIF, WebP).",
		);
	});
});

describe("read: paths and errors", () => {
	it("reports a missing file", async () => {
		await expect(read({ path: "nope.txt" })).rejects.toThrow("File not found: nope.txt");
		await expect(read({ path: "nope/deeper.txt" })).rejects.toThrow("File not found: nope/deeper.txt");
	});

	it("reports a directory", async () => {
		await mkdir(join(dir, "sub"));
		await expect(read({ path: "sub" })).rejects.toThrow("sub is a directory (use ls to list it)");
	});

	it("resolves relative paths against cwd and accepts absolute ones", async () => {
		await mkdir(join(dir, "nested"));
		await writeFile(join(dir, "nested", "file.txt"), "inside\n");
		expect(textOf(await read({ path: "nested/file.txt" }))).toBe("inside");
		expect(textOf(await read({ path: "./nested/../nested/file.txt" }))).toBe("inside");
		expect(textOf(await read({ path: join(dir, "nested", "file.txt") }))).toBe("inside");
	});

	it("expands ~ to the home directory", async () => {
		const previousHome = process.env.HOME;
		process.env.HOME = dir;
		try {
			await writeFile(join(dir, "notes.txt"), "from home\n");
			const tool = createReadTool({ cwd: tmpdir() });
			const result = await tool.execute("call-1", { path: "~/notes.txt" }, signal, () => undefined);
			expect(textOf(result)).toBe("from home");
		} finally {
			if (previousHome === undefined) delete process.env.HOME;
			else process.env.HOME = previousHome;
		}
	});

	it("stops when the signal has fired", async () => {
		await writeFile(join(dir, "small.txt"), "one\n");
		const controller = new AbortController();
		controller.abort();
		await expect(read({ path: "small.txt" }, controller.signal)).rejects.toThrow("Operation aborted");
	});
});

describe("read: only what was asked for is held", () => {
	async function selection(content: string | Buffer, request: { startIndex: number; limit?: number }) {
		const path = join(dir, "selection.txt");
		await writeFile(path, content);
		const handle = await open(path, "r");
		try {
			return await selectLines(handle, { limit: undefined, maxLines: 2000, maxBytes: 50 * 1024, ...request });
		} finally {
			await handle.close();
		}
	}

	it("keeps only the start of a huge line, yet reports its true size and the total line count", async () => {
		const huge = "h".repeat(5 * 1024 * 1024);
		const result = await selection(`first\n${huge}\nthird\n`, { startIndex: 1, limit: 1 });
		expect(result.totalLines).toBe(3);
		expect(result.firstLineBytes).toBe(huge.length);
		expect(result.selectedBytes).toBe(huge.length);
		expect(result.kept).toHaveLength(1);
		expect(result.kept[0]?.length).toBe(50 * 1024 + 1);
		expect(result.complete).toBe(false);
	});

	it("skips the lines before the offset without holding them", async () => {
		const huge = "s".repeat(3 * 1024 * 1024);
		const result = await selection(`${huge}\n${huge}\nwanted\nafter\n`, { startIndex: 2, limit: 1 });
		expect(result).toMatchObject({ totalLines: 4, kept: ["wanted"], complete: true, selectedLines: 1 });
	});

	it("stops holding lines one past the line limit but counts the whole selection", async () => {
		const result = await selection(numberedLines(5000), { startIndex: 0 });
		expect(result.kept).toHaveLength(2001);
		expect(result).toMatchObject({ totalLines: 5000, selectedLines: 5000, complete: false });
		expect(result.selectedBytes).toBe(numberedLines(5000).length - 1);
	});

	it("finds lines across chunk boundaries and counts a file of a million lines", async () => {
		await writeFile(join(dir, "million.txt"), numberedLines(1_000_000));
		expect(textOf(await read({ path: "million.txt", offset: 999_999, limit: 1 }))).toBe(
			"line999999\n\n[1 more lines in file. Use offset=1000000 to continue.]",
		);
		await expect(read({ path: "million.txt", offset: 1_000_001 })).rejects.toThrow(
			"Offset 1000001 is beyond end of file (1000000 lines total)",
		);
	});

	it("counts lines as before: a final LF ends the last line, an empty file has one line", async () => {
		expect((await selection("", { startIndex: 0 })).totalLines).toBe(1);
		expect((await selection("a", { startIndex: 0 })).totalLines).toBe(1);
		expect((await selection("a\n", { startIndex: 0 })).totalLines).toBe(1);
		expect((await selection("a\n\n", { startIndex: 0 })).totalLines).toBe(2);
		expect((await selection("\uFEFF", { startIndex: 0 })).kept).toEqual([""]);
		expect((await selection("a\r\nb", { startIndex: 0 })).kept).toEqual(["a\r", "b"]);
	});

	it("decodes multi-byte characters split across chunks", async () => {
		const text = `${"é".repeat(200_000)}\n`;
		const result = await selection(text, { startIndex: 0, limit: 1 });
		expect(result.firstLineBytes).toBe(400_000);
		expect(result.kept[0]?.startsWith("éé")).toBe(true);
	});
});
