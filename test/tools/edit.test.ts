import { mkdtemp, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEditTool, MAX_EDIT_BYTES, TOLERANT_MATCH_MAX_CHARS } from "../../src/tools/edit.js";

let dir: string;
const signal = new AbortController().signal;

beforeEach(async () => {
	dir = await mkdtemp(join(tmpdir(), "atomic-edit-"));
});

afterEach(async () => {
	await rm(dir, { recursive: true, force: true });
});

interface EditArgs {
	path: string;
	oldText?: string;
	newText?: string;
	edits?: { oldText: string; newText: string }[];
}

function edit(args: EditArgs, abortSignal = signal) {
	return createEditTool({ cwd: dir }).execute("call-1", args, abortSignal, () => undefined);
}

async function fileWith(content: string, name = "f.txt"): Promise<string> {
	await writeFile(join(dir, name), content);
	return name;
}

function contentOf(name = "f.txt"): Promise<string> {
	return readFile(join(dir, name), "utf8");
}

const NOT_FOUND =
	"Could not find the exact text in f.txt. The old text must match exactly, including all whitespace and newlines.";

describe("edit: exact replacement", () => {
	it("replaces a unique text and returns a diff", async () => {
		await fileWith("alpha\nbeta\ngamma\n");
		const result = await edit({ path: "f.txt", oldText: "beta", newText: "BETA" });
		expect(result.content).toEqual([{ type: "text", text: "Successfully replaced text in f.txt." }]);
		expect(result.details).toEqual({
			diff: "--- f.txt\n+++ f.txt\n@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma\n",
			firstChangedLine: 2,
		});
		expect(await contentOf()).toBe("alpha\nBETA\ngamma\n");
	});

	it("shows three lines of context and the first changed line of the new file", async () => {
		const lines = Array.from({ length: 12 }, (_, index) => `line${index + 1}`);
		await fileWith(`${lines.join("\n")}\n`);
		const result = await edit({ path: "f.txt", oldText: "line7\n", newText: "seven\nseven and a half\n" });
		expect(result.details).toEqual({
			diff:
				"--- f.txt\n+++ f.txt\n@@ -4,7 +4,8 @@\n line4\n line5\n line6\n-line7\n+seven\n+seven and a half\n" +
				" line8\n line9\n line10\n",
			firstChangedLine: 7,
		});
	});

	it("points at the line after a deletion", async () => {
		await fileWith("a\nb\nc\nd\n");
		const result = await edit({ path: "f.txt", oldText: "b\nc\n", newText: "" });
		expect(result.details?.firstChangedLine).toBe(2);
		expect(await contentOf()).toBe("a\nd\n");
	});

	it("inserts newText literally (no $ patterns)", async () => {
		await fileWith("price: X\n");
		await edit({ path: "f.txt", oldText: "X", newText: "$& $1 $$" });
		expect(await contentOf()).toBe("price: $& $1 $$\n");
	});

	it("applies several edits in order, each on the result of the previous one", async () => {
		await fileWith("one\ntwo\nthree\n");
		const result = await edit({
			path: "f.txt",
			edits: [
				{ oldText: "two", newText: "2" },
				{ oldText: "one\n2", newText: "1\n2" },
				{ oldText: "three", newText: "3" },
			],
		});
		expect(result.content).toEqual([{ type: "text", text: "Successfully applied 3 edits to f.txt." }]);
		expect(result.details?.firstChangedLine).toBe(1);
		expect(await contentOf()).toBe("1\n2\n3\n");
	});

	it("reports a single edits entry like a plain replacement", async () => {
		await fileWith("one\n");
		const result = await edit({ path: "f.txt", edits: [{ oldText: "one", newText: "1" }] });
		expect(result.content).toEqual([{ type: "text", text: "Successfully replaced text in f.txt." }]);
	});

	it("names the failing edit and leaves the file untouched", async () => {
		await fileWith("one\ntwo\n");
		await expect(
			edit({
				path: "f.txt",
				edits: [
					{ oldText: "one", newText: "1" },
					{ oldText: "missing", newText: "x" },
				],
			}),
		).rejects.toThrow(`edits[1]: ${NOT_FOUND}`);
		expect(await contentOf()).toBe("one\ntwo\n");
	});

	it("serialises concurrent edits of one file", async () => {
		await fileWith("a\nb\n");
		await Promise.all([
			edit({ path: "f.txt", oldText: "a", newText: "A" }),
			edit({ path: "f.txt", oldText: "b", newText: "B" }),
		]);
		expect(await contentOf()).toBe("A\nB\n");
	});
});

describe("edit: tolerant matching", () => {
	it("ignores trailing whitespace on each line", async () => {
		await fileWith("function f() {  \n\treturn 1;\t\n}\n");
		await edit({ path: "f.txt", oldText: "function f() {\n\treturn 1;\n}", newText: "function g() {\n\treturn 2;\n}" });
		expect(await contentOf()).toBe("function g() {\n\treturn 2;\n}\n");
	});

	it("ignores trailing whitespace the old text has and the file lacks", async () => {
		await fileWith("a = 1\nb = 2\n");
		await edit({ path: "f.txt", oldText: "a = 1   \nb = 2", newText: "a = 10\nb = 20" });
		expect(await contentOf()).toBe("a = 10\nb = 20\n");
	});

	it("matches smart quotes with ASCII quotes and replaces only the matched region", async () => {
		await fileWith("title = “keep”\nsay(“hi”, ‘there’)\n");
		await edit({ path: "f.txt", oldText: `say("hi", 'there')`, newText: `say("bye")` });
		expect(await contentOf()).toBe(`title = “keep”\nsay("bye")\n`);
	});

	it("matches ASCII quotes in the file with smart quotes in the old text", async () => {
		await fileWith(`print("hi")\n`);
		await edit({ path: "f.txt", oldText: "print(“hi”)", newText: `print("bye")` });
		expect(await contentOf()).toBe(`print("bye")\n`);
	});

	it("matches en and em dashes with hyphens", async () => {
		await fileWith("pages 1–5 — see notes\nother – line\n");
		await edit({ path: "f.txt", oldText: "pages 1-5 - see notes", newText: "pages 1-6" });
		expect(await contentOf()).toBe("pages 1-6\nother – line\n");
	});

	it("matches non-breaking and other special spaces with plain spaces", async () => {
		await fileWith("const\u00A0x\u202F=\u20031;\nconst\u00A0y = 2;\n");
		await edit({ path: "f.txt", oldText: "const x = 1;", newText: "const x = 9;" });
		expect(await contentOf()).toBe("const x = 9;\nconst\u00A0y = 2;\n");
	});

	it("matches compatibility characters after NFKC", async () => {
		await fileWith("ＡＢＣ ﬁle\n");
		await edit({ path: "f.txt", oldText: "ABC file", newText: "abc file" });
		expect(await contentOf()).toBe("abc file\n");
	});

	it("keeps trailing whitespace after the matched region", async () => {
		await fileWith("x = “a”   \ny\n");
		await edit({ path: "f.txt", oldText: `x = "a"`, newText: "x = 'b'" });
		expect(await contentOf()).toBe("x = 'b'   \ny\n");
	});
});

describe("edit: errors", () => {
	it("rejects text that is not unique", async () => {
		await fileWith("x = 1\nx = 1\n");
		await expect(edit({ path: "f.txt", oldText: "x = 1", newText: "x = 2" })).rejects.toThrow(
			"Found 2 occurrences of the text in f.txt. The text must be unique. Add more surrounding context to make it unique.",
		);
	});

	it("rejects a tolerant match that is not unique", async () => {
		await fileWith("say “hi”\nsay ‘hi’\nsay ”hi“\n");
		await expect(edit({ path: "f.txt", oldText: `say "hi"`, newText: "x" })).rejects.toThrow(
			"Found 2 occurrences of the text in f.txt.",
		);
	});

	it("rejects text that is not there", async () => {
		await fileWith("alpha\n");
		await expect(edit({ path: "f.txt", oldText: "beta", newText: "x" })).rejects.toThrow(NOT_FOUND);
		await expect(edit({ path: "f.txt", oldText: "   \n ", newText: "x" })).rejects.toThrow(NOT_FOUND);
	});

	it("rejects a replacement that changes nothing", async () => {
		await fileWith("alpha\n");
		await expect(edit({ path: "f.txt", oldText: "alpha", newText: "alpha" })).rejects.toThrow(
			"No changes made to f.txt. The replacement produced identical content.",
		);
	});

	it("rejects an empty oldText", async () => {
		await fileWith("alpha\n");
		await expect(edit({ path: "f.txt", oldText: "", newText: "x" })).rejects.toThrow("oldText must not be empty.");
		await expect(
			edit({
				path: "f.txt",
				edits: [
					{ oldText: "alpha", newText: "a" },
					{ oldText: "", newText: "x" },
				],
			}),
		).rejects.toThrow("edits[1]: oldText must not be empty.");
	});

	it("rejects incomplete or mixed argument shapes", async () => {
		await fileWith("alpha\n");
		await expect(edit({ path: "f.txt" })).rejects.toThrow(
			"Provide oldText and newText, or edits: [{oldText, newText}, ...].",
		);
		await expect(edit({ path: "f.txt", oldText: "alpha" })).rejects.toThrow(
			"newText is required together with oldText.",
		);
		await expect(edit({ path: "f.txt", newText: "alpha" })).rejects.toThrow(
			"oldText is required together with newText.",
		);
		await expect(edit({ path: "f.txt", edits: [] })).rejects.toThrow(
			"edits must contain at least one {oldText, newText} pair.",
		);
		await expect(
			edit({ path: "f.txt", oldText: "a", newText: "b", edits: [{ oldText: "c", newText: "d" }] }),
		).rejects.toThrow("Use either oldText/newText or edits, not both.");
	});

	it("requires the file to exist", async () => {
		await expect(edit({ path: "nope.txt", oldText: "a", newText: "b" })).rejects.toThrow("File not found: nope.txt");
	});
});

describe("edit: encoding and line endings", () => {
	it("keeps a UTF-8 byte order mark", async () => {
		await fileWith("\uFEFFhello\nworld\n");
		await edit({ path: "f.txt", oldText: "hello", newText: "hi" });
		const bytes = await readFile(join(dir, "f.txt"));
		expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
		expect(bytes.subarray(3).toString("utf8")).toBe("hi\nworld\n");
	});

	it("keeps CRLF line endings everywhere, whatever the old and new text use", async () => {
		await fileWith("one\r\ntwo\r\nthree\r\n");
		const result = await edit({ path: "f.txt", oldText: "one\ntwo", newText: "1\n2\n2.5" });
		expect(await contentOf()).toBe("1\r\n2\r\n2.5\r\nthree\r\n");
		expect(result.details).toEqual({
			diff: "--- f.txt\n+++ f.txt\n@@ -1,3 +1,4 @@\n-one\n-two\n+1\n+2\n+2.5\n three\n",
			firstChangedLine: 1,
		});

		await edit({ path: "f.txt", oldText: "2.5\r\nthree", newText: "3\r\nfour" });
		const bytes = await readFile(join(dir, "f.txt"), "latin1");
		expect(bytes).toBe("1\r\n2\r\n3\r\nfour\r\n");
		expect(/(?<!\r)\n/.test(bytes)).toBe(false);
	});

	it("keeps LF files LF even when the texts use CRLF", async () => {
		await fileWith("one\ntwo\n");
		await edit({ path: "f.txt", oldText: "one\r\ntwo", newText: "1\r\n2" });
		expect(await contentOf()).toBe("1\n2\n");
	});

	it("keeps the ending of every untouched line in a file that mixes CRLF and LF", async () => {
		await fileWith("a\r\nb\nc\r\n");
		await edit({ path: "f.txt", oldText: "b", newText: "B" });
		expect(await readFile(join(dir, "f.txt"), "latin1")).toBe("a\r\nB\nc\r\n");
		await edit({ path: "f.txt", oldText: "c", newText: "C" });
		expect(await readFile(join(dir, "f.txt"), "latin1")).toBe("a\r\nB\nC\r\n");
	});

	it("gives edited lines the endings of the lines they replace", async () => {
		await fileWith("head\r\none\ntwo\r\ntail\n");
		await edit({ path: "f.txt", oldText: "one\ntwo\ntail", newText: "1\n2\n3\n4" });
		// one's LF, two's CRLF, then the last break of the region (CRLF) for the extra line.
		expect(await readFile(join(dir, "f.txt"), "latin1")).toBe("head\r\n1\n2\r\n3\r\n4\n");
		await edit({ path: "f.txt", oldText: "head", newText: "h1\nh2" });
		// A region without breaks takes the ending of the line it is in.
		expect(await readFile(join(dir, "f.txt"), "latin1")).toBe("h1\r\nh2\r\n1\n2\r\n3\r\n4\n");
	});

	it("reports the diff on LF text for a mixed file", async () => {
		await fileWith("a\r\nb\nc\r\n");
		const result = await edit({ path: "f.txt", oldText: "b\nc", newText: "B\nC" });
		expect(await readFile(join(dir, "f.txt"), "latin1")).toBe("a\r\nB\nC\r\n");
		expect(result.details?.diff).toBe("--- f.txt\n+++ f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n-c\n+B\n+C\n");
	});

	it("matches large files exactly only, and says so when the text is not found", async () => {
		const line = "const x = \u201Cquoted\u201D;\n";
		await fileWith(line.repeat(Math.ceil((TOLERANT_MATCH_MAX_CHARS + 1) / line.length)));
		await expect(edit({ path: "f.txt", oldText: `const x = "quoted";`, newText: "y" })).rejects.toThrow(
			"are matched exactly, without forgiving whitespace or quotes",
		);
	});

	it("refuses a file over the edit size limit", async () => {
		const path = join(dir, "big.txt");
		await writeFile(path, "");
		await truncate(path, MAX_EDIT_BYTES + 1);
		await expect(edit({ path: "big.txt", oldText: "a", newText: "b" })).rejects.toThrow(
			/big\.txt is too large to edit \(16\.0MB; at most 16\.0MB\)\. Use bash/,
		);
	});

	it("stops before writing once the signal has fired", async () => {
		await fileWith("alpha\n");
		const controller = new AbortController();
		controller.abort();
		await expect(edit({ path: "f.txt", oldText: "alpha", newText: "beta" }, controller.signal)).rejects.toThrow(
			"Operation aborted",
		);
		expect(await contentOf()).toBe("alpha\n");
	});
});
